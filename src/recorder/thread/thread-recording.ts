import { open } from 'node:fs/promises';
import type { Interaction, MachineFolders, RedactionConfig } from '../../cassette/index.js';
import type { WholeExchanges } from '../journal/clean.js';
import { foldEntry, openedBy } from '../journal/fold.js';
import type { Flushed, JournalEntry } from '../journal/format.js';
import { LocalSink } from '../journal/sink.js';
import { Pacer } from './pacer.js';
import type { Collected } from './protocol.js';
import { type Prepared, SavePreparation } from './save-preparation.js';

/** The batch with its bytes as Buffers again: a Buffer that crossed to this thread arrives as a plain Uint8Array. */
function revived(batch: (JournalEntry | Flushed)[]): (JournalEntry | Flushed)[] {
  const asBuffer = (b: Uint8Array): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  for (const e of batch) if ((e.k === 'request-body' || e.k === 'end') && e.bytes instanceof Uint8Array) e.bytes = asBuffer(e.bytes);
  return batch;
}

// One per thread: its recordings take turns on it, a batch at a time.
const pacer = new Pacer();

/**
 * One recording as the recording thread keeps it: its journal, cleaned and written here, and each exchange rebuilt
 * from the same entries (as `bench recover` rebuilds it) and prepared for the save once it has ended, so neither
 * redaction nor rendering runs on the thread that forwards the traffic.
 */
export class ThreadRecording {
  private readonly bySeq = new Map<number, Interaction>();
  private readonly ended = new Set<number>();
  private readonly preparation: SavePreparation;
  private readonly had = wholeExchanges(this.bySeq, this.ended, (i) => this.prepareOne(i));

  private constructor(
    private readonly sink: LocalSink,
    redact: RedactionConfig | undefined,
    folders: MachineFolders | undefined,
  ) {
    this.preparation = new SavePreparation(redact, folders);
  }

  static async open(file: string, redact: RedactionConfig | undefined, folders: MachineFolders | undefined): Promise<ThreadRecording> {
    return new ThreadRecording(LocalSink.over(await open(file, 'a'), { redact, folders, offThread: pacer }), redact, folders);
  }

  /** Appends a batch to the journal and prepares the exchanges it ended. */
  write(batch: (JournalEntry | Flushed)[]): Promise<void> {
    return this.take(batch, () => this.sink.write(batch, this.had));
  }

  /** Appends the last batch and closes the journal. */
  close(batch: (JournalEntry | Flushed)[]): Promise<void> {
    return this.take(batch, () => this.sink.close(batch, this.had));
  }

  /** What was prepared, for the save. */
  collect(): Collected {
    return this.preparation.collect();
  }

  private async take(batch: (JournalEntry | Flushed)[], journal: () => Promise<void>): Promise<void> {
    pacer.start();
    const settled = this.fold(revived(batch));
    try {
      await journal();
    } finally {
      this.prepareSettled(settled);
    }
  }

  /** Folds the batch into the exchanges it belongs to; returns those it ended. */
  private fold(batch: (JournalEntry | Flushed)[]): number[] {
    const settled: number[] = [];
    for (const e of batch) {
      if (e.k === 'open') {
        this.bySeq.set(e.seq, openedBy(e));
      } else if (this.ended.has(e.seq)) {
        // It changed after its end (a frame behind a close): the save renders it from what it became.
        this.preparation.forget(e.seq);
        this.bySeq.delete(e.seq);
      } else {
        const i = this.bySeq.get(e.seq);
        if (i) foldEntry(i, e, this.ended);
        if (i && e.k === 'end') settled.push(e.seq);
      }
    }
    return settled;
  }

  /** Prepares what ended and the journal did not ask for already. */
  private prepareSettled(seqs: number[]): void {
    for (const seq of seqs) {
      const i = this.bySeq.get(seq);
      if (!i) continue;
      pacer.pause();
      this.prepareOne(i);
    }
  }

  /** Prepares one exchange that ended; it is let go here (the recorder holds it), only its text kept. */
  private prepareOne(i: Interaction): Prepared | undefined {
    this.bySeq.delete(i.seq);
    return this.preparation.one(i);
  }
}

/**
 * The journal's whole exchanges as the thread folded them, each prepared for the save as the journal asks for
 * its line: the journal writes what the preparation redacted, not a redaction of its own.
 */
function wholeExchanges(
  bySeq: ReadonlyMap<number, Interaction>,
  ended: ReadonlySet<number>,
  prepare: (i: Interaction) => Prepared | undefined,
): WholeExchanges {
  return {
    folded: (seq) => (ended.has(seq) ? bySeq.get(seq) : undefined),
    // Only an exchange folded here: one that changed after its end is left to the save, and its line to the journal.
    redacted: (i) => {
      const done = bySeq.get(i.seq) === i ? prepare(i) : undefined;
      return done && { interaction: done.scrubbed, secrets: done.prepared.secrets };
    },
  };
}
