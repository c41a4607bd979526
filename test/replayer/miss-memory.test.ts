import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startReplayServer } from '../../src/replayer/index.js';
import { jsonGet } from '../helpers/cassettes.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

// A collection on demand, so that what is measured is what is kept, not garbage not yet collected.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const cassette = jsonGet('/health', { ok: true });

describe('a replay server that misses forever', () => {
  it('grows by less than 20 MB over 100k unmatched requests, each with its own path, query, secret and body', async () => {
    const server = await startReplayServer([{ name: 'one.yaml', cassette }], { log: () => {} });
    cleanups.push(() => server.close());
    const agent = new Agent({ connections: 8 });
    cleanups.push(() => agent.close());
    const miss = (i: number) =>
      request(`${server.url}/miss/${i}?q=${i}&token=tok_${i}_abcdefgh`, {
        dispatcher: agent,
        method: i % 2 ? 'POST' : 'GET',
        headers: { 'x-request-id': `req-${i}`, 'content-type': 'application/json' },
        body: i % 2 ? JSON.stringify({ n: i, api_key: `key-${i}-abcdefghij`, text: 'x'.repeat(200) }) : null,
      }).then((r) => r.body.text());
    const run = async (from: number, n: number) => {
      for (let i = from; i < from + n; i += 50) await Promise.all(Array.from({ length: 50 }, (_, k) => miss(i + k)));
    };
    await run(0, 5_000);
    const before = heapAfterGc();
    await run(5_000, 100_000);
    const grown = heapAfterGc() - before;
    expect(server.engine.missCount).toBe(105_000);
    expect(grown / 1024 / 1024).toBeLessThan(20);
  }, 300_000);
});
