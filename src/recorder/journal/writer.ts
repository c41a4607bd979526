import { type FileHandle, open, rm } from 'node:fs/promises';
import type { CassetteMeta, MachineFolders, RedactionConfig } from '../../cassette/index.js';
import { wakeAfter } from '../wake-up.js';
import { JournalCleaner } from './clean.js';
import { coalesce, type Flushed, type JournalEntry, JournalError, type JournalRecord } from './format.js';

/** How long a captured entry may wait before it is on disk (the kill-safety window). */
const FLUSH_MS = 20;
/** How long cleaning may hold the event loop before what it has cleaned is written (and the loop serves requests). */
const SLICE_MS = 1;

/**
 * An append-only file of what a recording captured, written within
 * milliseconds of capture, redacted and made portable first: a recorder
 * killed at any moment leaves everything but the last instants on disk.
 */
export class JournalWriter {
  private queue: (JournalEntry | Flushed)[] = [];
  private cancelWake: (() => void) | undefined;
  private batching = false;
  private writing: Promise<void> = Promise.resolve();
  /** Set when the journal could not be written (a full disk): what is in memory is then all there is. */
  error: Error | undefined;

  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
    private readonly cleaner: JournalCleaner,
  ) {}

  /** Creates the journal; refuses one that is already there (an earlier recording not yet recovered). */
  static async create(
    file: string,
    meta: CassetteMeta,
    options: { redact?: RedactionConfig | undefined; folders?: MachineFolders | undefined } = {},
  ): Promise<JournalWriter> {
    return new JournalWriter(file, await createJournalFile(file, meta), new JournalCleaner(options.folders, options.redact));
  }

  /** Queues an entry; it reaches the file within a few milliseconds. */
  add(entry: JournalEntry): void {
    this.queue.push(entry);
    if (this.batching) return;
    this.cancelWake ??= wakeAfter(FLUSH_MS, () => {
      this.cancelWake = undefined;
      void this.flush();
    });
  }

  /** Runs `work`, whose entries are written together right after it, with no wake-up set for them. */
  batch(work: () => void): void {
    this.batching = true;
    try {
      work();
    } finally {
      this.batching = false;
      void this.flush();
    }
  }

  /** Writes everything queued so far. */
  flush(): Promise<void> {
    this.cancelWake?.();
    this.cancelWake = undefined;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return this.writing;
    this.writing = this.writing.then(async () => {
      if (this.error) return;
      // A full disk must not stop the recording in memory; the clean save still has it all.
      await writeInSlices(this.handle, this.cleaner.records(coalesce(batch))).catch((e: Error) => {
        this.error = e;
      });
    });
    return this.writing;
  }

  /** Flushes and closes the file, leaving it on disk. */
  async close(): Promise<void> {
    // Nothing more will come to finish a held stream: its items are written as they are.
    this.cleaner.closing = true;
    await this.flush();
    this.queue.push(...this.cleaner.holding());
    await this.flush();
    await this.handle.close().catch(() => {});
  }

  /** Closes and removes the journal: the cassette it stood in for is saved. */
  async discard(): Promise<void> {
    await this.close();
    await rm(this.file, { force: true });
  }
}

/** Opens a new journal file and writes its meta line; one already there is an earlier recording not yet recovered. */
async function createJournalFile(file: string, meta: CassetteMeta): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'wx', 0o600);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EEXIST') {
      const cassette = file.replace(/\.journal$/, '');
      throw new JournalError(
        'journal_exists',
        `${file} holds a recording that was never saved (its recorder was stopped hard); run \`bench recover ${cassette}\` to save it, or delete the journal`,
      );
    }
    throw new JournalError('journal_unwritable', `${file} cannot be created: ${err.message}`);
  }
  await handle.write(`${JSON.stringify({ k: 'meta', journal: 1, meta } satisfies JournalRecord)}\n`);
  return handle;
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
