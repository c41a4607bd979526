import type { Interaction, SseItem } from '../cassette/index.js';
import { itemType } from '../contracts/index.js';

/**
 * How far a stream had come: the `count`-th event of `type` (the last one the client had seen). Counting one type,
 * not all events, lets a server add or drop heartbeats and unrelated events without stalling the re-run.
 */
export interface Mark {
  type: string;
  count: number;
}

/** Before a request is sent again: an earlier exchange has ended, or its stream has come as far as `mark`. */
export interface Wait {
  seq: number;
  /** Undefined: the exchange's end. */
  mark?: Mark | undefined;
}

/**
 * How far the recorded client read a stream: to its end; to a mark (or, when no event of the mark's type comes, as
 * many events as recorded: a server that renamed it), then closed once the exchanges that had ended before its close
 * (`after`) have ended again; or until the run ends.
 */
export type ReadTo =
  | { kind: 'end' }
  | { kind: 'events'; mark: Mark; total: number; after: number[] }
  | { kind: 'run-end'; mark?: Mark | undefined };

/** The mark of the last event (not a comment) among `items`, or undefined when there is none. */
export function markOf(items: readonly SseItem[]): Mark | undefined {
  const types = items.map((i) => itemType(i)).filter((t) => t !== ':comment');
  const type = types.at(-1);
  return type === undefined ? undefined : { type, count: types.filter((t) => t === type).length };
}

/** One recorded request, sent again once its waits hold; a run of polls is one step sent up to `poll.count` times. */
export interface Step {
  interaction: Interaction;
  waits: Wait[];
  readTo: ReadTo;
  /** A run of the same request repeated by the client: the recorded exchanges after the first, and the gaps between them. */
  poll?: { repeats: Interaction[]; gapMs: number } | undefined;
}

const startOf = (i: Interaction) => i.timing.start;
const endOf = (i: Interaction) => i.timing.end ?? Number.POSITIVE_INFINITY;

function readToOf(i: Interaction, all: readonly Interaction[]): ReadTo {
  const stream = i.response?.stream;
  if (!stream) return { kind: 'end' };
  // A stream the client closed was read as far as it had come; one the proxy's stop cut was open until the run ended.
  const mark = markOf(stream.events);
  if (stream.end === 'client-closed' && mark) {
    const after = all.filter((o) => o !== i && endOf(o) > startOf(i) && endOf(o) <= endOf(i)).map((o) => o.seq);
    return { kind: 'events', mark, total: stream.events.length, after };
  }
  if (stream.end === 'proxy-closed' || stream.end === 'client-closed') return { kind: 'run-end', mark };
  return { kind: 'end' };
}

/**
 * What `later` waited for in the recording: every exchange that had ended before it started, and every stream
 * still open as far as it had come then (a client posts once it has seen the stream's first event).
 */
function waitsOf(later: Interaction, earlier: readonly Interaction[]): Wait[] {
  const at = startOf(later);
  const waits: Wait[] = [];
  for (const e of earlier) {
    if (endOf(e) <= at) waits.push({ seq: e.seq });
    else {
      const mark = markOf(e.response?.stream?.events.filter((x) => x.at <= at) ?? []);
      if (mark) waits.push({ seq: e.seq, mark });
    }
  }
  return waits;
}

/** The request's identity as a poll: what a client repeats unchanged. */
const pollKey = (i: Interaction) => `${i.request.method} ${i.request.path} ${JSON.stringify(i.request.body ?? null)}`;

/**
 * The steps of a recording: its HTTP exchanges in the order they started (WebSocket sessions are not re-run), with
 * what each waited for. Back-to-back repeats of one plain request (no stream, each sent after the last answered) fold
 * into one polling step.
 */
export function planOf(interactions: readonly Interaction[]): Step[] {
  const http = [...interactions].filter((i) => !i.response?.websocket).sort((a, b) => startOf(a) - startOf(b) || a.seq - b.seq);
  const steps: Step[] = [];
  for (let n = 0; n < http.length; n++) {
    const i = http[n] as Interaction;
    const last = steps.at(-1);
    const head = last?.interaction;
    const previous = last?.poll?.repeats.at(-1) ?? head;
    if (
      head &&
      previous &&
      !i.response?.stream &&
      !head.response?.stream &&
      pollKey(i) === pollKey(head) &&
      endOf(previous) <= startOf(i)
    ) {
      last.poll ??= { repeats: [], gapMs: 0 };
      last.poll.repeats.push(i);
      continue;
    }
    steps.push({ interaction: i, waits: waitsOf(i, http.slice(0, n)), readTo: readToOf(i, http) });
  }
  for (const step of steps) if (step.poll) step.poll.gapMs = medianGap(step);
  return steps;
}

/** The client's pause between one answer of a poll and its next request. */
function medianGap(step: Step): number {
  const all = [step.interaction, ...(step.poll?.repeats ?? [])];
  const gaps = all.slice(1).map((i, n) => Math.max(0, startOf(i) - endOf(all[n] as Interaction)));
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)] ?? 0;
}
