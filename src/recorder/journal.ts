import { open, readFile, rm } from 'node:fs/promises';
import {
  type Body,
  CASSETTE_VERSION,
  type Cassette,
  type CassetteMeta,
  type ContentEncoding,
  encodeBody,
  type Failure,
  type Headers,
  type Interaction,
  type MachineFolders,
  makeRedactor,
  portableInteraction,
  type RedactionConfig,
  type RedactorSession,
  type SseItem,
  type StreamEnd,
  type Timing,
  type WsFrame,
} from '../cassette/index.js';
import { TapedeckError } from '../errors.js';
import { storedBody } from './body-buffer.js';
import { StreamTails } from './stream-tails.js';
import { wakeAfter } from './wake-up.js';

/** Where the journal of a recording bound for `cassette` lives: beside it, so a crash leaves it in plain sight. */
export const journalPath = (cassette: string): string => `${cassette}.journal`;

/** What the recorder tells the journal, as it happens. Bytes and live objects are turned into records when flushed. */
export type JournalEntry =
  | { k: 'open'; seq: number; request: Interaction['request']; start: number }
  | { k: 'request-body'; seq: number; bytes: Buffer; encoding?: ContentEncoding }
  | {
      k: 'response';
      seq: number;
      at: number;
      status: number;
      headers: Interaction['request']['headers'];
      kind: 'body' | 'stream' | 'websocket';
      encoding?: ContentEncoding;
    }
  | { k: 'event'; seq: number; item: SseItem }
  | { k: 'frame'; seq: number; frame: WsFrame }
  | {
      k: 'end';
      seq: number;
      timing: Timing;
      failure?: Failure | undefined;
      end?: StreamEnd | undefined;
      error?: string | undefined;
      bytes?: Buffer | Body | undefined;
      encoding?: ContentEncoding | undefined;
      trailers?: Headers | undefined;
    };

/** A journal line: an entry made portable and redacted, bytes encoded as a cassette body. */
type JournalRecord =
  | { k: 'meta'; journal: 1; meta: CassetteMeta }
  | Exclude<JournalEntry, { k: 'request-body' } | { k: 'end' } | { k: 'event' }>
  | { k: 'request-body'; seq: number; body: Body; encoding?: ContentEncoding }
  /** Consecutive events of one stream, cleaned together: one redaction pass per flush, not per event. */
  | { k: 'events'; seq: number; items: SseItem[] }
  | {
      k: 'end';
      seq: number;
      timing: Timing;
      failure?: Failure;
      end?: StreamEnd;
      error?: string;
      body?: Body;
      encoding?: ContentEncoding;
      trailers?: Headers;
    };

/** A journal that is in the way, cannot be written, or cannot be read back. */
export class JournalError extends TapedeckError {
  declare readonly code: 'journal_exists' | 'journal_unwritable' | 'journal_unreadable';

  constructor(code: JournalError['code'], message: string) {
    super(code, message);
  }
}

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
  private readonly redact: RedactorSession;
  /** Each stream's last items (and each session's last frames), held while a secret may have begun there (`StreamTails`). */
  private readonly tails: StreamTails<SseItem>;
  private readonly frameTails: StreamTails<WsFrame>;
  private closing = false;
  /** Built once: reading the machine's folders and compiling their patterns per entry was most of a small exchange's cost. */
  private readonly portable: (i: Interaction) => Interaction;
  private failed: Error | undefined;

  private constructor(
    readonly file: string,
    private readonly handle: import('node:fs/promises').FileHandle,
    folders: MachineFolders | undefined,
    redact: RedactionConfig | undefined,
  ) {
    this.redact = makeRedactor(redact).session();
    this.tails = new StreamTails(
      (items, before) => this.redact.unfinishedFrom(items, before),
      (e) => e.data?.length ?? 0,
    );
    this.frameTails = new StreamTails(
      (frames, before) => this.redact.unfinishedFramesFrom(frames, before),
      (f) => f.text?.length ?? (f.json === undefined ? 0 : JSON.stringify(f.json).length),
    );
    this.portable = portableInteraction(folders);
  }

  /** Creates the journal; refuses one that is already there (an earlier recording not yet recovered). */
  static async create(
    file: string,
    meta: CassetteMeta,
    options: { redact?: RedactionConfig | undefined; folders?: MachineFolders | undefined } = {},
  ): Promise<JournalWriter> {
    let handle: import('node:fs/promises').FileHandle;
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
    const writer = new JournalWriter(file, handle, options.folders, options.redact);
    await handle.write(`${JSON.stringify({ k: 'meta', journal: 1, meta } satisfies JournalRecord)}\n`);
    return writer;
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
      if (this.failed) return;
      try {
        // Cleaning is the costly part (redaction of every body): done in slices, each written before the next, so
        // a request that arrives meanwhile waits for one slice, not for a whole window's worth of exchanges.
        let text = '';
        let until = performance.now() + SLICE_MS;
        for (const e of this.withHeldItems(coalesce(batch))) {
          for (const record of this.clean(e)) text += `${JSON.stringify(record)}\n`;
          if (performance.now() < until) continue;
          await this.handle.write(text);
          text = '';
          until = performance.now() + SLICE_MS;
        }
        if (text) await this.handle.write(text);
      } catch (e) {
        // A full disk must not stop the recording in memory; the clean save still has it all.
        this.failed = e as Error;
      }
    });
    return this.writing;
  }

  /** The journal could not be written (a full disk): what is in memory is all there is. */
  get error(): Error | undefined {
    return this.failed;
  }

  /** Flushes and closes the file, leaving it on disk. */
  async close(): Promise<void> {
    // Nothing more will come to finish a held stream: its items are written as they are.
    this.closing = true;
    await this.flush();
    const holding = [
      ...this.tails.holding().map((seq): Flushed => ({ k: 'events', seq, items: [] })),
      ...this.frameTails.holding().map((seq): Flushed => ({ k: 'frames', seq, frames: [] })),
    ];
    if (holding.length > 0) {
      this.queue.push(...holding);
      await this.flush();
    }
    await this.handle.close().catch(() => {});
  }

  /** Closes and removes the journal: the cassette it stood in for is saved. */
  async discard(): Promise<void> {
    await this.close();
    await rm(this.file, { force: true });
  }

  /**
   * The entries with each stream's items held back while a secret may have begun in them, and written, with
   * their context, once the next items finish it or the stream ends.
   */
  private *withHeldItems(entries: Flushed[]): Generator<Cleanable> {
    for (const e of entries) {
      const final = e.k === 'end' || this.closing;
      // Made portable once, as they come: held or read again as context, they stay so.
      if (e.k === 'events' || e.k === 'end') {
        const items = e.k === 'events' ? (this.portable(streamOf(e.seq, e.items)).response?.stream?.events ?? []) : [];
        const { write, before } = this.tails.next(e.seq, items, final);
        if (write.length > 0) yield { k: 'events', seq: e.seq, items: write, before };
      }
      if (e.k === 'frames' || e.k === 'end') {
        const frames = e.k === 'frames' ? (this.portable(sessionOf(e.seq, e.frames)).response?.websocket?.frames ?? []) : [];
        const { write, before } = this.frameTails.next(e.seq, frames, final);
        if (write.length > 0) yield { k: 'frames', seq: e.seq, frames: write, before };
      }
      if (e.k !== 'events' && e.k !== 'frames') yield e;
    }
  }

  /** The entry as it may reach disk: placeholders in, secrets out, through the same passes as the cassette. */
  private clean(e: Cleanable): JournalRecord[] {
    const one = (i: Omit<Interaction, 'seq' | 'timing'> & Partial<Interaction>): Interaction =>
      this.redact.redact(pieceOf(this.portable({ seq: e.seq, timing: { start: 0 }, ...i } as Interaction))).interactions[0] as Interaction;
    const blank = { method: 'GET', path: '/', headers: {} };
    switch (e.k) {
      case 'open':
        return [{ ...e, request: one({ request: e.request }).request }];
      case 'request-body': {
        const body = encodeBody(e.bytes);
        const cleaned = (body && one({ request: { ...blank, body } }).request.body) ?? { text: '' };
        return [{ k: 'request-body', seq: e.seq, body: cleaned, ...(e.encoding ? { encoding: e.encoding } : {}) }];
      }
      case 'response':
        return [{ ...e, headers: one({ request: blank, response: { status: e.status, headers: e.headers } }).response?.headers ?? {} }];
      // Items and frames are made portable already; read after those written last (context, not written again),
      // so a secret begun there is cut from these too.
      case 'events': {
        const { items, before } = e;
        const cleaned = this.redact.redact(pieceOf(streamOf(e.seq, items)), { of: items, before });
        return [{ k: 'events', seq: e.seq, items: cleaned.interactions[0]?.response?.stream?.events ?? items }];
      }
      case 'frames': {
        const { frames, before } = e;
        const cleaned = this.redact.redact(pieceOf(sessionOf(e.seq, frames)), { of: frames, before });
        return (cleaned.interactions[0]?.response?.websocket?.frames ?? frames).map((frame) => ({ k: 'frame', seq: e.seq, frame }));
      }
      case 'end': {
        const { bytes, ...rest } = e;
        const body = storedBody(bytes);
        const trailers = e.trailers;
        const cleaned = one({
          request: blank,
          ...(body || trailers
            ? { response: { status: 200, headers: {}, ...(body ? { body } : {}), ...(trailers ? { trailers } : {}) } }
            : {}),
          ...(e.failure ? { failure: e.failure } : {}),
        });
        return [
          {
            k: 'end',
            seq: e.seq,
            timing: rest.timing,
            ...(cleaned.failure ? { failure: cleaned.failure } : {}),
            ...(rest.end ? { end: rest.end } : {}),
            ...(rest.error ? { error: rest.error } : {}),
            ...(cleaned.response?.body ? { body: cleaned.response.body } : {}),
            ...(rest.encoding ? { encoding: rest.encoding } : {}),
            ...(cleaned.response?.trailers ? { trailers: cleaned.response.trailers } : {}),
          },
        ];
      }
    }
  }
}

/** One interaction as the piece of a recording the redactor's session takes. */
const pieceOf = (i: Interaction): Cassette => ({
  version: CASSETTE_VERSION,
  meta: { recorder: '', target: '', recordedAt: '' },
  interactions: [i],
});

/** WebSocket frames as the one session of an interaction, for the passes that clean a whole interaction. */
const sessionOf = (seq: number, frames: WsFrame[]): Interaction => ({
  seq,
  timing: { start: 0 },
  request: { method: 'GET', path: '/', headers: {} },
  response: { status: 101, headers: {}, websocket: { frames, end: 'server-closed' } },
});

/** SSE items as the one stream of an interaction, for the passes that clean a whole interaction. */
const streamOf = (seq: number, events: SseItem[]): Interaction => ({
  seq,
  timing: { start: 0 },
  request: { method: 'GET', path: '/', headers: {} },
  response: { status: 200, headers: {}, stream: { events, end: 'server-closed' } },
});

/** An entry as a flush takes it: runs of `event` (`frame`) entries of one stream (session) as one `events` (`frames`) entry. */
type Flushed =
  | Exclude<JournalEntry, { k: 'event' } | { k: 'frame' }>
  | { k: 'events'; seq: number; items: SseItem[] }
  | { k: 'frames'; seq: number; frames: WsFrame[] };
/** An entry ready to clean: a stream's items (a session's frames) come with those written last before them, as context. */
type Cleanable =
  | Exclude<Flushed, { k: 'events' } | { k: 'frames' }>
  | { k: 'events'; seq: number; items: SseItem[]; before: SseItem[] }
  | { k: 'frames'; seq: number; frames: WsFrame[]; before: WsFrame[] };

/** Runs of `event` (`frame`) entries of one stream (session) become one entry, so a flush cleans each run once. */
function coalesce(batch: (JournalEntry | Flushed)[]): Flushed[] {
  const out: Flushed[] = [];
  for (const e of batch) {
    const last = out.at(-1);
    if (e.k === 'event') {
      if (last?.k === 'events' && last.seq === e.seq) last.items.push(e.item);
      else out.push({ k: 'events', seq: e.seq, items: [e.item] });
    } else if (e.k === 'frame') {
      if (last?.k === 'frames' && last.seq === e.seq) last.frames.push(e.frame);
      else out.push({ k: 'frames', seq: e.seq, frames: [e.frame] });
    } else out.push(e);
  }
  return out;
}

/** What a journal held, as a cassette; `interrupted` counts the exchanges the recorder never saw end. */
export interface Recovered {
  cassette: Cassette;
  interrupted: number;
}

const INTERRUPTED = 'the recorder stopped before this exchange ended';

/**
 * Folds a journal back into a cassette. A torn last line (the recorder killed
 * mid-write) is dropped; an exchange without its end is kept as far as it got,
 * its stream `broken` or, without a response, a `recording_interrupted` failure.
 */
export async function readJournal(file: string): Promise<Recovered> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new JournalError('journal_unreadable', `${file} cannot be read: ${(e as Error).message}`);
  }
  const lines = text.split('\n');
  let meta: CassetteMeta | undefined;
  const bySeq = new Map<number, Interaction>();
  const ended = new Set<number>();
  for (const line of lines) {
    if (!line) continue;
    let r: JournalRecord;
    try {
      r = JSON.parse(line) as JournalRecord;
    } catch {
      continue;
    }
    if (r.k === 'meta') {
      meta = r.meta;
      continue;
    }
    if (r.k === 'open') {
      bySeq.set(r.seq, { seq: r.seq, request: r.request, timing: { start: r.start } });
      continue;
    }
    const i = bySeq.get(r.seq);
    if (!i) continue;
    switch (r.k) {
      case 'request-body':
        i.request.body = r.body;
        if (r.encoding) i.request.encoding = r.encoding;
        break;
      case 'response':
        i.timing.headers = r.at;
        i.response = {
          status: r.status,
          headers: r.headers,
          ...(r.kind === 'stream' ? { stream: { events: [], end: 'server-closed' as const } } : {}),
          ...(r.kind === 'websocket' ? { websocket: { frames: [], end: 'server-closed' as const } } : {}),
          ...(r.encoding ? { encoding: r.encoding } : {}),
        };
        break;
      case 'events':
        i.response?.stream?.events.push(...r.items);
        break;
      case 'frame':
        i.response?.websocket?.frames.push(r.frame);
        break;
      case 'end': {
        ended.add(r.seq);
        i.timing = r.timing;
        if (r.failure) i.failure = r.failure;
        const live = i.response?.stream ?? i.response?.websocket;
        if (live && r.end) live.end = r.end;
        if (live && r.error) live.error = r.error;
        if (i.response && r.body) i.response.body = r.body;
        if (i.response && r.encoding) i.response.encoding = r.encoding;
        if (i.response && r.trailers) i.response.trailers = r.trailers;
        break;
      }
    }
  }
  if (!meta) throw new JournalError('journal_unreadable', `${file} is not a tapedeck journal (no meta line); it cannot be recovered`);
  let interrupted = 0;
  const interactions = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  for (const i of interactions) {
    if (ended.has(i.seq)) continue;
    interrupted++;
    const live = i.response?.stream ?? i.response?.websocket;
    if (live) {
      live.end = 'broken';
      live.error = INTERRUPTED;
    } else i.failure = { code: 'recording_interrupted', message: INTERRUPTED };
  }
  return { cassette: { version: CASSETTE_VERSION, meta, interactions }, interrupted };
}
