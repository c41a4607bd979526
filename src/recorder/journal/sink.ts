import { writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { MachineFolders, RedactionConfig } from '../../cassette/index.js';
import { JournalCleaner, type WholeExchanges } from './clean.js';
import { coalesce, type Flushed, type JournalEntry, type JournalRecord } from './format.js';

/** How long cleaning may hold the event loop before what it has cleaned is written (and the loop serves requests). */
const SLICE_MS = 1;

/** How a sink on the recording thread lets the traffic's threads run: called between two records. */
export interface Pace {
  pause(): void;
}

/** Where a journal's batches go to be cleaned and written: this thread, or the recording thread. */
export interface JournalSink {
  /** Cleans and appends one batch; rejects when the file cannot be written. */
  write(batch: (JournalEntry | Flushed)[]): Promise<void>;
  /** Appends the last batch and every stream's held items as they are, then closes the file. */
  close(batch: (JournalEntry | Flushed)[]): Promise<void>;
}

/** A journal cleaned and written by the thread that holds it. */
export class LocalSink implements JournalSink {
  private constructor(
    private readonly handle: FileHandle,
    private readonly cleaner: JournalCleaner,
    private readonly offThread: Pace | undefined,
  ) {}

  /**
   * Appends to an open journal whose first line is written already. `offThread`: no request waits on this
   * thread, so each batch is written whole, in one blocking write, which costs a tenth of the CPU of a
   * FileHandle write (the promise and the hop through libuv's pool; about 48 µs against 5 µs a write here),
   * and the thread is paced between records.
   */
  static over(
    handle: FileHandle,
    options: { redact?: RedactionConfig | undefined; folders?: MachineFolders | undefined; offThread?: Pace },
  ): LocalSink {
    return new LocalSink(handle, new JournalCleaner(options.folders, options.redact), options.offThread);
  }

  /** Cleans and appends one batch; `had`: its whole exchanges as the caller folded and redacted them already. */
  write(batch: (JournalEntry | Flushed)[], had?: WholeExchanges): Promise<void> {
    const records = this.cleaner.records(coalesce(batch), had);
    const pace = this.offThread;
    if (!pace) return writeInSlices(records, SLICE_MS, async (text) => void (await this.handle.write(text)));
    const each = function* () {
      for (const record of records) {
        yield record;
        pace.pause();
      }
    };
    return writeInSlices(each(), Number.POSITIVE_INFINITY, async (text) => {
      const bytes = Buffer.from(text);
      for (let at = 0; at < bytes.byteLength; ) at += writeSync(this.handle.fd, bytes, at);
    });
  }

  async close(batch: (JournalEntry | Flushed)[], had?: WholeExchanges): Promise<void> {
    // Nothing more will come to finish a held stream: its items are written as they are.
    this.cleaner.closing = true;
    try {
      await this.write(batch, had);
      await this.write(this.cleaner.holding());
    } finally {
      await this.handle.close().catch(() => {});
    }
  }
}

/**
 * Writes records as they are cleaned, a slice at a time: cleaning is the costly part (redaction of every body),
 * so a request that arrives meanwhile waits for one slice, not for a whole window's worth of exchanges.
 */
async function writeInSlices(records: Iterable<JournalRecord>, sliceMs: number, append: (text: string) => Promise<void>): Promise<void> {
  let text = '';
  let until = performance.now() + sliceMs;
  for (const record of records) {
    text += `${JSON.stringify(record)}\n`;
    if (performance.now() < until) continue;
    await append(text);
    text = '';
    until = performance.now() + sliceMs;
  }
  if (text) await append(text);
}
