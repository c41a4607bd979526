import type { Cassette, Interaction } from './schema.js';

/**
 * A cassette with a later recording's interactions after its own, as
 * `record: 'missing'` keeps what was recorded before and adds what was not:
 * the added seqs and causes come after every seq already there, and their
 * times after the last moment already recorded. A cause of 0 (before
 * anything) stays 0: the added part never waits for the old one.
 */
export function appendRecording(base: Cassette, added: Cassette): Cassette {
  const seqs = base.interactions.flatMap((i) => [i.seq, ...(i.response?.websocket?.frames.flatMap((f) => (f.seq ? [f.seq] : [])) ?? [])]);
  const seqOffset = Math.max(0, ...seqs);
  const times = base.interactions.flatMap((i) => [
    i.timing.start,
    i.timing.end ?? 0,
    ...(i.response?.stream?.events.map((e) => e.at) ?? []),
    ...(i.response?.websocket?.frames.map((f) => f.at) ?? []),
  ]);
  const timeOffset = Math.max(0, ...times);
  const seq = (n: number) => n + seqOffset;
  const cause = (n: number) => (n === 0 ? 0 : n + seqOffset);
  const at = (t: number) => t + timeOffset;
  const shift = (i: Interaction): Interaction => {
    const response = i.response && {
      ...i.response,
      ...(i.response.stream && {
        stream: { ...i.response.stream, events: i.response.stream.events.map((e) => ({ ...e, at: at(e.at), after: cause(e.after) })) },
      }),
      ...(i.response.websocket && {
        websocket: {
          ...i.response.websocket,
          frames: i.response.websocket.frames.map((f) => ({
            ...f,
            at: at(f.at),
            after: cause(f.after),
            ...(f.seq !== undefined && { seq: seq(f.seq) }),
          })),
        },
      }),
    };
    const timing = {
      start: at(i.timing.start),
      ...(i.timing.headers !== undefined && { headers: at(i.timing.headers) }),
      ...(i.timing.end !== undefined && { end: at(i.timing.end) }),
    };
    return { ...i, seq: seq(i.seq), ...(response && { response }), timing };
  };
  return { ...base, interactions: [...base.interactions, ...added.interactions.map(shift)] };
}
