import { open } from 'node:fs/promises';
import {
  type Interaction,
  type MachineFolders,
  type PreparedInteraction,
  portablePass,
  type RedactionConfig,
  scrubbingPreparer,
} from '../../cassette/index.js';
import type { WholeExchanges } from '../journal/clean.js';
import { foldEntry, openedBy } from '../journal/fold.js';
import type { Flushed, JournalEntry } from '../journal/format.js';
import { LocalSink } from '../journal/sink.js';
import type { Collected } from './protocol.js';

/** A prepared exchange as the thread keeps it until the save collects it. */
type Ready = Pick<PreparedInteraction, 'secrets' | 'text' | 'scrubbedWith'>;

/** The batch with its bytes as Buffers again: a Buffer that crossed to this thread arrives as a plain Uint8Array. */
function revived(batch: (JournalEntry | Flushed)[]): (JournalEntry | Flushed)[] {
  const asBuffer = (b: Uint8Array): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  for (const e of batch) if ((e.k === 'request-body' || e.k === 'end') && e.bytes instanceof Uint8Array) e.bytes = asBuffer(e.bytes);
  return batch;
}

/**
 * One recording as the recording thread keeps it: its journal, cleaned and written here, and each exchange rebuilt
 * from the same entries (as `bench recover` rebuilds it) and prepared for the save once it has ended, so neither
 * redaction nor rendering runs on the thread that forwards the traffic.
 */
export class ThreadRecording {
  private readonly bySeq = new Map<number, Interaction>();
  private readonly ended = new Set<number>();
  /** What was prepared, without the exchange itself: holding that too kept every exchange twice, one on each thread. */
  private readonly ready = new Map<number, Ready>();
  private readonly prepare: ReturnType<typeof scrubbingPreparer>;
  /**
   * The journal's whole exchanges as this thread folded them, each prepared for the save as the journal asks
   * for its line: the journal writes what the preparation redacted, not a redaction of its own.
   */
  private readonly had: WholeExchanges = {
    folded: (seq) => (this.ended.has(seq) ? this.bySeq.get(seq) : undefined),
    // Only an exchange folded here: one that changed after its end is left to the save, and its line to the journal.
    redacted: (i) => {
      const done = this.bySeq.get(i.seq) === i ? this.prepareOne(i) : undefined;
      return done && { interaction: done.scrubbed, secrets: done.prepared.secrets };
    },
  };

  private constructor(
    private readonly sink: LocalSink,
    redact: RedactionConfig | undefined,
    folders: MachineFolders | undefined,
  ) {
    this.prepare = scrubbingPreparer(redact, portablePass(folders));
  }

  static async open(file: string, redact: RedactionConfig | undefined, folders: MachineFolders | undefined): Promise<ThreadRecording> {
    return new ThreadRecording(LocalSink.over(await open(file, 'a'), { redact, folders, offThread: true }), redact, folders);
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
    return collected(this.ready);
  }

  private async take(batch: (JournalEntry | Flushed)[], journal: () => Promise<void>): Promise<void> {
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
        this.ready.delete(e.seq);
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
      if (i) this.prepareOne(i);
    }
  }

  /** Prepares one exchange that ended; it is let go here (the recorder holds it), only its text kept. */
  private prepareOne(i: Interaction): ReturnType<ThreadRecording['prepare']> | undefined {
    this.bySeq.delete(i.seq);
    try {
      const done = this.prepare(() => i);
      const { secrets, text, scrubbedWith } = done.prepared;
      this.ready.set(i.seq, { secrets, text, scrubbedWith });
      return done;
    } catch {
      // What cannot be prepared is rendered by the save, which reports it there.
      return undefined;
    }
  }
}

/** The prepared texts as they cross back, with the scrub list the current ones were made with. */
function collected(ready: Map<number, Ready>): Collected {
  let list: Collected['list'];
  const items: Collected['items'] = [];
  for (const [seq, p] of ready) {
    const current = p.scrubbedWith.list !== undefined;
    if (current) list = p.scrubbedWith.list;
    items.push([seq, p.secrets, p.text, current]);
  }
  return { list, items };
}
