import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Interaction, MachineFolders, PreparedInteraction, RedactionConfig } from '../../cassette/index.js';
import type { Flushed, JournalEntry } from '../journal/format.js';
import type { JournalSink } from '../journal/sink.js';
import type { Collected, ThreadReply, ThreadRequest } from './protocol.js';

/** A request, as sent: without the call number the thread answers it by. */
type Ask = ThreadRequest extends infer R ? (R extends ThreadRequest ? Omit<R, 'call'> : never) : never;

// The compiled thread beside this module; run from the TypeScript sources there is none, and the recording stays on this thread.
const SCRIPT = fileURLToPath(new URL('./worker.js', import.meta.url));

/** The process's one recording thread: started on the first recording that has a journal, shared by every later one. */
class RecordingThread {
  private readonly worker: Worker;
  private readonly calls = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private next = 0;
  broken: Error | undefined;

  constructor() {
    this.worker = new Worker(SCRIPT, {
      name: 'tapedeck recording',
      // None of the process's options: the thread runs only tapedeck's own compiled code, and one started from a
      // file refuses some of them (--input-type, as `node --input-type=module -e` passes it), which broke it.
      execArgv: [],
    });
    this.worker.on('message', (reply: ThreadReply) => {
      const call = this.calls.get(reply.call);
      if (!call) return;
      this.calls.delete(reply.call);
      if (this.calls.size === 0) this.worker.unref();
      if (reply.ok) call.resolve(reply.value);
      else call.reject(new Error(reply.message));
    });
    const fail = (err: Error) => {
      this.broken ??= err;
      for (const call of this.calls.values()) call.reject(err);
      this.calls.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the recording thread stopped (exit code ${code})`)));
    // Only a call waiting for its answer holds the process open.
    this.worker.unref();
  }

  ask(request: Ask): Promise<unknown> {
    if (this.broken) return Promise.reject(this.broken);
    const call = ++this.next;
    return new Promise((resolve, reject) => {
      this.calls.set(call, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ ...request, call });
    });
  }
}

/**
 * The batch with each body in a buffer of its own: a Buffer is most often a view of a larger one (a socket read,
 * the allocation pool), and a view crosses to another thread with all of the buffer under it.
 */
function compact(batch: (JournalEntry | Flushed)[]): (JournalEntry | Flushed)[] {
  for (const e of batch)
    if ((e.k === 'request-body' || e.k === 'end') && e.bytes instanceof Uint8Array && e.bytes.byteLength !== e.bytes.buffer.byteLength)
      e.bytes = new Uint8Array(e.bytes) as Buffer;
  return batch;
}

let shared: RecordingThread | undefined;
let ids = 0;
// A recording dropped unsaved (a test that failed before its save): the thread lets go of what it prepared.
const unsaved = new FinalizationRegistry<{ thread: RecordingThread; id: number }>(({ thread, id }) => {
  thread.ask({ op: 'forget', id }).catch(() => {});
});

/**
 * One recording's journal and save preparation on the recording thread, or undefined where there is no thread
 * (run from the sources, or one that broke): the recording then does that work itself.
 */
export function offThread(redact: RedactionConfig | undefined, folders: MachineFolders | undefined): OffThread | undefined {
  if (shared?.broken) return undefined;
  if (!shared) {
    if (!existsSync(SCRIPT)) return undefined;
    try {
      shared = new RecordingThread();
    } catch {
      return undefined;
    }
  }
  const recording = new OffThread(shared, ++ids, redact, folders);
  unsaved.register(recording, { thread: shared, id: ids });
  return recording;
}

/** The recorder's side of one recording on the thread: the journal's sink, and what was prepared for the save. */
export class OffThread {
  constructor(
    private readonly thread: RecordingThread,
    private readonly id: number,
    private readonly redact: RedactionConfig | undefined,
    private readonly folders: MachineFolders | undefined,
  ) {}

  /**
   * The journal's batches go to the thread, which cleans and appends them to `file`. Resolves once the thread has
   * started and opened the file, so the first exchanges are not held while it loads (a kill then would lose them).
   */
  async sink(file: string): Promise<JournalSink> {
    await this.thread.ask({ op: 'open', id: this.id, file, redact: this.redact, folders: this.folders });
    const send = (op: 'write' | 'close', batch: (JournalEntry | Flushed)[]) =>
      this.thread.ask({ op, id: this.id, batch: compact(batch) }).then(() => undefined);
    return { write: (batch) => send('write', batch), close: (batch) => send('close', batch) };
  }

  /**
   * What the thread prepared, by exchange, to be taken by the save; the thread then forgets the recording.
   * Nothing, when the thread cannot answer: the save renders every exchange itself.
   */
  async collect(stored: (i: Interaction) => Interaction): Promise<{ get(i: Interaction): PreparedInteraction | undefined }> {
    const got = (await this.thread.ask({ op: 'collect', id: this.id }).catch(() => undefined)) as Collected | undefined;
    const current = { list: got?.list };
    const stale = { list: undefined };
    const bySeq = new Map(got?.items.map(([seq, secrets, text, now]) => [seq, { secrets, text, scrubbedWith: now ? current : stale }]));
    return {
      get(i) {
        const p = bySeq.get(i.seq);
        return p && { prepared: true, ...p, interaction: () => stored(i) };
      },
    };
  }

  /** The recording will not be saved: the thread lets go of what it prepared. */
  forget(): void {
    this.thread.ask({ op: 'forget', id: this.id }).catch(() => {});
  }
}
