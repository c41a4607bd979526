import type { FileHandle } from 'node:fs/promises';
import type { MachineFolders, RedactionConfig } from '../../cassette/index.js';
import { JournalCleaner } from './clean.js';
import { coalesce, type Flushed, type JournalEntry, type JournalRecord } from './format.js';

/** How long cleaning may hold the event loop before what it has cleaned is written (and the loop serves requests). */
const SLICE_MS = 1;

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
  ) {}

  /** Appends to an open journal whose first line is written already. */
  static over(handle: FileHandle, options: { redact?: RedactionConfig | undefined; folders?: MachineFolders | undefined }): LocalSink {
    return new LocalSink(handle, new JournalCleaner(options.folders, options.redact));
  }

  write(batch: (JournalEntry | Flushed)[]): Promise<void> {
    return writeInSlices(this.handle, this.cleaner.records(coalesce(batch)));
  }

  async close(batch: (JournalEntry | Flushed)[]): Promise<void> {
    // Nothing more will come to finish a held stream: its items are written as they are.
    this.cleaner.closing = true;
    try {
      await this.write(batch);
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
async function writeInSlices(handle: FileHandle, records: Iterable<JournalRecord>): Promise<void> {
  let text = '';
  let until = performance.now() + SLICE_MS;
  for (const record of records) {
    text += `${JSON.stringify(record)}\n`;
    if (performance.now() < until) continue;
    await handle.write(text);
    text = '';
    until = performance.now() + SLICE_MS;
  }
  if (text) await handle.write(text);
}
