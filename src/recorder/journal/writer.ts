import { type FileHandle, open, rm } from 'node:fs/promises';
import type { CassetteMeta, MachineFolders, RedactionConfig } from '../../cassette/index.js';
import { wakeAfter } from '../wake-up.js';
import { type Flushed, type JournalEntry, JournalError, type JournalRecord } from './format.js';
import { type JournalSink, LocalSink } from './sink.js';

/** How long a captured entry may wait before it is on disk (the kill-safety window). */
const FLUSH_MS = 20;

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
  private closing: Promise<void> | undefined;

  private constructor(
    readonly file: string,
    private readonly sink: JournalSink,
  ) {}

  /** Creates the journal, or refuses one already there (not yet recovered); `sink` cleans and writes it, or this thread. */
  static async create(file: string, meta: CassetteMeta, options: SinkOptions = {}): Promise<JournalWriter> {
    return new JournalWriter(file, await openSink(file, meta, options));
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
      await this.sink.write(batch).catch((e: Error) => {
        this.error = e;
      });
    });
    return this.writing;
  }

  /** Flushes and closes the file, leaving it on disk. */
  async close(): Promise<void> {
    this.closing ??= (async () => {
      this.cancelWake?.();
      this.cancelWake = undefined;
      const last = this.queue;
      this.queue = [];
      await this.writing;
      await this.sink.close(this.error ? [] : last).catch((e: Error) => {
        this.error ??= e;
      });
    })();
    return this.closing;
  }

  /** Closes and removes the journal: the cassette it stood in for is saved. */
  async discard(): Promise<void> {
    await this.close();
    await rm(this.file, { force: true });
  }
}

type SinkOptions = {
  redact?: RedactionConfig | undefined;
  folders?: MachineFolders | undefined;
  sink?: ((file: string) => Promise<JournalSink>) | undefined;
};

/** A new journal, its meta line written, and where its batches go. */
async function openSink(file: string, meta: CassetteMeta, options: SinkOptions): Promise<JournalSink> {
  const handle = await createJournalFile(file, meta);
  if (!options.sink) return LocalSink.over(handle, options);
  // The recording thread appends to the file itself; one that cannot leaves the journal to this thread.
  await handle.close();
  try {
    return await options.sink(file);
  } catch {
    return LocalSink.over(await open(file, 'a'), options);
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
