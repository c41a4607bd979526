import {
  type Body,
  CASSETTE_VERSION,
  type Cassette,
  type CassetteMeta,
  type ContentEncoding,
  type Failure,
  type Headers,
  type Interaction,
  type SseItem,
  type StreamEnd,
  type Timing,
  type WsFrame,
} from '../../cassette/index.js';
import { TapedeckError } from '../../errors.js';

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
export type JournalRecord =
  | { k: 'meta'; journal: 1; meta: CassetteMeta }
  | Exclude<JournalEntry, { k: 'request-body' } | { k: 'end' } | { k: 'event' }>
  | { k: 'request-body'; seq: number; body: Body; encoding?: ContentEncoding }
  /** Consecutive events of one stream, cleaned together: one redaction pass per flush, not per event. */
  | { k: 'events'; seq: number; items: SseItem[] }
  /** An exchange opened and ended within one flush, cleaned whole: one redaction pass, one line (decision 0025). */
  | { k: 'exchange'; seq: number; interaction: Interaction }
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

/** One interaction as the piece of a recording the redactor's session takes. */
export const pieceOf = (i: Interaction): Cassette => ({
  version: CASSETTE_VERSION,
  meta: { recorder: '', target: '', recordedAt: '' },
  interactions: [i],
});

/** WebSocket frames as the one session of an interaction, for the passes that clean a whole interaction. */
export const sessionOf = (seq: number, frames: WsFrame[]): Interaction => ({
  seq,
  timing: { start: 0 },
  request: { method: 'GET', path: '/', headers: {} },
  response: { status: 101, headers: {}, websocket: { frames, end: 'server-closed' } },
});

/** SSE items as the one stream of an interaction, for the passes that clean a whole interaction. */
export const streamOf = (seq: number, events: SseItem[]): Interaction => ({
  seq,
  timing: { start: 0 },
  request: { method: 'GET', path: '/', headers: {} },
  response: { status: 200, headers: {}, stream: { events, end: 'server-closed' } },
});

/** An entry as a flush takes it: runs of `event` (`frame`) entries of one stream (session) as one `events` (`frames`) entry. */
export type Flushed =
  | Exclude<JournalEntry, { k: 'event' } | { k: 'frame' }>
  | { k: 'events'; seq: number; items: SseItem[] }
  | { k: 'frames'; seq: number; frames: WsFrame[] };
/** An entry ready to clean: a stream's items (a session's frames) come with those written last before them, as context. */
export type Cleanable =
  | Exclude<Flushed, { k: 'events' } | { k: 'frames' }>
  | { k: 'events'; seq: number; items: SseItem[]; before: SseItem[] }
  | { k: 'frames'; seq: number; frames: WsFrame[]; before: WsFrame[] };

/** Runs of `event` (`frame`) entries of one stream (session) become one entry, so a flush cleans each run once. */
export function coalesce(batch: (JournalEntry | Flushed)[]): Flushed[] {
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
