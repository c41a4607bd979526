import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendRecording, type Cassette, parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { cassetteArb } from './arbitraries.js';

/** Every seq and time a cassette's causes and offsets speak of, in one list each. */
function stamps(c: Cassette) {
  return c.interactions.map((i) => ({
    seq: i.seq,
    start: i.timing.start,
    causes: [...(i.response?.stream?.events.map((e) => e.after) ?? []), ...(i.response?.websocket?.frames.map((f) => f.after) ?? [])],
    times: [...(i.response?.stream?.events.map((e) => e.at) ?? []), ...(i.response?.websocket?.frames.map((f) => f.at) ?? [])],
  }));
}

describe("appendRecording (record: 'missing')", () => {
  it('keeps the first cassette as it was and puts every seq, cause and time of the second after it', () => {
    fc.assert(
      fc.property(cassetteArb, cassetteArb, (base, added) => {
        const merged = parseCassette(serializeCassette(appendRecording(base, added)));
        expect(merged.interactions.slice(0, base.interactions.length)).toEqual(parseCassette(serializeCassette(base)).interactions);
        const before = stamps(base);
        const lastSeq = Math.max(0, ...before.map((s) => s.seq));
        const lastTime = Math.max(0, ...before.flatMap((s) => [s.start, ...s.times]), ...base.interactions.map((i) => i.timing.end ?? 0));
        const tail = stamps(merged).slice(base.interactions.length);
        const original = stamps(added);
        tail.forEach((s, k) => {
          const o = original[k] as (typeof original)[number];
          expect(s.seq).toBe(o.seq + lastSeq);
          expect(s.start).toBeCloseTo(o.start + lastTime, 6);
          // A cause of 0 (before anything) stays 0; every other cause moves with the seqs.
          expect(s.causes).toEqual(o.causes.map((c) => (c === 0 ? 0 : c + lastSeq)));
        });
        const seqs = merged.interactions.map((i) => i.seq);
        expect(new Set(seqs).size).toBe(seqs.length);
      }),
      { numRuns: 100 },
    );
  });
});
