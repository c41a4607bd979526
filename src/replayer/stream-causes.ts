import type { Cassette, Interaction, SseItem } from '../cassette/index.js';

/** A path segment that names one resource (a session, a run, a thread): long enough and with a digit, unlike `v1` or `events`. */
const KEY = /^[A-Za-z0-9_.:-]{6,}$/;
const hasDigit = /\d/;

/** Whether a string names one resource: id-like, long enough and with a digit. */
export function isResourceKey(s: string): boolean {
  return KEY.test(s) && hasDigit.test(s);
}

/** The resource keys in a request path: id-like segments, query left out. */
export function pathKeys(path: string): string[] {
  const q = path.indexOf('?');
  return (q === -1 ? path : path.slice(0, q)).split('/').filter(isResourceKey);
}

/** The resources a stream is about, and per event the request it waits for. */
export interface StreamCauses {
  /** Its path's resource keys: its events wait for requests naming one of them (none: for any request). */
  keys: string[];
  causes: number[];
  /**
   * The request the server's end of the stream waits for: the latest one (of those its events may wait for) that
   * had arrived when the server ended it. An MCP server ends a session's standalone stream because of its DELETE.
   */
  end: number;
}

/**
 * For each event of a recorded stream, the request it waits for on replay
 * (decision 0008). The recorder stamps an event with the latest request of
 * any client; a stream whose path names a resource (`/sessions/{id}/stream`)
 * waits only for requests that name it too (its own client's posts, polls,
 * stops), so a stream recorded among other clients replays alone. A stream
 * whose path names nothing (`/event`) keeps the recorded stamp.
 */
export function streamCauses(cassette: Cassette, stream: Interaction, events: readonly SseItem[]): StreamCauses {
  const keys = pathKeys(stream.request.path);
  const related = (i: Interaction) => keys.length === 0 || pathKeys(i.request.path).some((k) => keys.includes(k));
  const end = endCause(cassette, stream, related);
  if (keys.length === 0) return { keys, causes: events.map((e) => e.after), end };
  const seqs = [stream.seq];
  for (const i of cassette.interactions) if (i.seq > stream.seq && related(i)) seqs.push(i.seq);
  seqs.sort((a, b) => a - b);
  return { keys, causes: events.map((e) => (e.after <= stream.seq ? e.after : latestAtOrBefore(seqs, e.after))), end };
}

/**
 * The latest related request that arrived before the server ended the stream (its recorded `timing.end`, taken
 * before the end was passed on, so no request the client sent after seeing the end counts); its own seq when none.
 */
function endCause(cassette: Cassette, stream: Interaction, related: (i: Interaction) => boolean): number {
  const ended = stream.timing.end;
  let cause = stream.seq;
  if (ended === undefined) return cause;
  for (const i of cassette.interactions) if (i.seq > cause && i.timing.start <= ended && related(i)) cause = i.seq;
  return cause;
}

/** The largest value of a sorted list that is at most `x` (the list's first value is always at most `x` here). */
function latestAtOrBefore(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((sorted[mid] as number) <= x) lo = mid;
    else hi = mid - 1;
  }
  return sorted[lo] as number;
}
