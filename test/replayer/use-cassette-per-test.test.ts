import { describe, expect, it } from 'vitest';
import type { Cassette } from '../../src/cassette/index.js';
import { useCassette } from '../../src/vitest/index.js';

// A fresh engine for every test: each replays the one recorded POST, which a shared engine would have used up.
const once: Cassette = {
  version: 1,
  meta: { recorder: 'test', target: 'http://api.test', recordedAt: '2026-01-01T00:00:00.000Z' },
  interactions: [
    {
      seq: 1,
      request: { method: 'POST', path: '/orders', headers: {}, body: { json: { item: 'tea' } } },
      response: { status: 201, headers: { 'content-type': 'application/json' }, body: { json: { id: 'o-1' } } },
      timing: { start: 0, end: 1 },
    },
  ],
};

describe('useCassette with perTest', () => {
  useCassette(once, { perTest: true, onExhausted: 'error' });
  const order = async () =>
    (
      await fetch('http://api.test/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"item":"tea"}' })
    ).json();
  it('serves the recorded answer to the first test', async () => expect(await order()).toEqual({ id: 'o-1' }));
  it('and again to the second, from a fresh engine', async () => expect(await order()).toEqual({ id: 'o-1' }));
});
