import { describe, expect, it } from 'vitest';
// The same load harness `npm run bench` measures, built from dist/ by `pretest`.
// @ts-expect-error: a plain-JS benchmark module, no type declarations.
import { runLoad } from '../../bench/load-streams.js';

interface LoadResult {
  seen: number[][];
  jsonIds: string[];
  cassette: import('../../src/cassette/index.js').Cassette;
}

describe('load through the recording proxy', () => {
  it('delivers and records every event of 200 concurrent streams of 500, in order, without duplicates', async () => {
    const r = (await runLoad({ streams: 200, eventsPerStream: 500, json: 200 })) as LoadResult;
    const expected = Array.from({ length: 500 }, (_, k) => k);
    for (const ks of r.seen) expect(ks).toEqual(expected);
    expect([...r.jsonIds].sort()).toEqual(Array.from({ length: 200 }, (_, j) => String(j)).sort());
    const streams = r.cassette.interactions.filter((i) => i.response?.stream);
    expect(streams.length).toBe(200);
    for (const i of streams) {
      expect(i.response?.stream?.end).toBe('server-closed');
      expect(i.response?.stream?.events.map((e) => JSON.parse(e.data as string).k)).toEqual(expected);
    }
    expect(r.cassette.interactions.length).toBe(400);
  }, 120_000);
});
