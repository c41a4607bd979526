import type { Cassette, Interaction } from '../../src/cassette/index.js';

/** A cassette as a test writes one: the meta every such fixture shares, around its interactions. */
export function testCassette(interactions: Interaction[]): Cassette {
  return {
    version: 1,
    meta: { recorder: 'tapedeck test', target: 'http://127.0.0.1:1', recordedAt: '2026-12-04T00:00:00.000Z' },
    interactions,
  };
}

/** The smallest recording a test replays: one GET answered 200 with JSON. */
export function jsonGet(path: string, json: unknown): Cassette {
  return testCassette([
    {
      seq: 1,
      request: { method: 'GET', path, headers: {} },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: { json } },
      timing: { start: 0, headers: 1, end: 2 },
    },
  ]);
}
