import { performance } from 'node:perf_hooks';
import type { SseItem } from '../cassette/index.js';
import { serializeSseFrame } from '../sse/index.js';
import { abortableSleep } from './abortable-sleep.js';
import type { Entry } from './answer-types.js';
import { delayFor } from './choose.js';
import { type Echoes, restoreEchoes } from './echoes.js';
import type { StreamCut } from './faults/index.js';
import { streamCauses } from './stream-causes.js';
import type { TimingMode } from './timing.js';

/** How a stream's recorded events become the bytes a client gets. */
export interface FrameText {
  timing: TimingMode;
  /** Recorded text as this client expects it: folder placeholders restored. */
  fromPlaceholders: (s: string) => string;
  /** A fuzzer reframes the stream: it writes canonical SSE of its own, so the recorded wire text is not kept. */
  reframing: boolean;
}

/** Whether recorded text is JSON: a placeholder standing for a number then takes the number back, unquoted. */
export function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** One recorded event as SSE text: its recorded wire text where kept, placeholders and echoed values restored. */
function encode(item: SseItem, text: FrameText, echoes?: Echoes): string {
  const restore = (t: string) => {
    const own = text.fromPlaceholders(t);
    return echoes && item.data !== undefined ? restoreEchoes(own, echoes, parsesAsJson(item.data)) : own;
  };
  if (item.raw !== undefined && !text.reframing) return restore(item.raw);
  if (item.comment !== undefined) return serializeSseFrame({ kind: 'comment', comment: item.comment });
  const { at: _at, after: _after, comment: _c, data, raw: _raw, ...fields } = item;
  return serializeSseFrame({ kind: 'event', ...fields, ...(data === undefined ? {} : { data: restore(data) }) });
}

/**
 * Yields the recorded events as SSE bytes, each once its cause has been
 * replayed (and, when timed, its recorded delay has passed). Events already
 * due go out together in one chunk.
 */
export async function* streamFrames(
  entry: Entry,
  events: SseItem[],
  servedAt: number,
  signal: AbortSignal,
  text: FrameText,
  echoes?: Echoes,
  cut?: StreamCut,
): AsyncGenerator<Buffer> {
  let batch = '';
  const own = entry.interaction.seq;
  const ownStart = entry.interaction.timing.start;
  const { timing } = text;
  const { causes, keys, end: endCause } = (entry.causes ??= streamCauses(entry.clock.cassette, entry.interaction, events));
  // A reframing fuzzer writes canonical SSE of its own, and values given back differ per request: nothing to keep.
  const wire = text.reframing || echoes ? undefined : (entry.wire ??= new Array(events.length));
  // Events that followed only this stream's own request keep their distance from when it was served.
  const untilDue = (item: SseItem, cause: number) =>
    cause > own
      ? delayFor(timing, entry, cause, item.at)
      : timing.kind === 'instant'
        ? 0
        : servedAt + timing.factor * (item.at - ownStart) - performance.now();
  for (const n of cut?.order ?? events.keys()) {
    const item = events[n] as SseItem;
    const cause = causes[n] ?? item.after;
    // The client has sent this stream's own request, so what followed it alone is due.
    const gated = cause > own && !entry.clock.reached(cause, keys);
    const wait = gated ? 0 : untilDue(item, cause);
    if ((gated || wait > 0) && batch) {
      yield Buffer.from(batch);
      batch = '';
    }
    if (gated) await entry.clock.waitReached(cause, signal, keys);
    const delay = gated ? untilDue(item, cause) : wait;
    if (delay > 0) await abortableSleep(delay, signal);
    batch += wire ? (wire[n] ??= encode(item, text)) : encode(item, text, echoes);
  }
  if (batch) yield Buffer.from(batch);
  // A fault that cut the stream ends it where it cut: the recorded end is not waited for.
  if (cut && !cut.ownEnd) return;
  await streamEnd(entry, servedAt, signal, text.timing, endCause, keys);
}

/**
 * The server's end waits for the requests that came before it, as its events do (decision 0008): an MCP
 * session's standalone stream ends when the client deletes the session, not once its last event is out. Timed,
 * the server's end (a close or a break) keeps its recorded distance too; a client-closed stream stays open anyway.
 */
async function streamEnd(
  entry: Entry,
  servedAt: number,
  signal: AbortSignal,
  timing: TimingMode,
  endCause: number,
  keys: readonly string[],
): Promise<void> {
  const stream = entry.interaction.response?.stream;
  const own = entry.interaction.seq;
  const ends = stream?.end === 'server-closed' || stream?.end === 'broken';
  if (ends && endCause > own && !entry.clock.reached(endCause, keys)) await entry.clock.waitReached(endCause, signal, keys);
  const end = entry.interaction.timing.end;
  if (timing.kind !== 'instant' && stream && stream.end !== 'client-closed' && end !== undefined) {
    const wait = servedAt + timing.factor * (end - entry.interaction.timing.start) - performance.now();
    if (wait > 0) await abortableSleep(wait, signal);
  }
}
