import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { curl, httpx, nodeFetch, recordAndReplayBehindProxy } from '../helpers/forward-proxy.js';

/** Python httpx 0.28.1, from test/peers/python/hermes-client.lock (installed by npm run test:peers). */
const PYTHON = join(import.meta.dirname, 'python', 'hermes-client', '.venv', 'bin', 'python');

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('bench proxy as HTTP_PROXY for three real clients', () => {
  it('records curl, Node fetch and Python httpx with their origins, refuses an origin not allowed, and replays all three', async () => {
    expect(existsSync(PYTHON), `httpx is not installed at ${PYTHON}; run npm run test:peers`).toBe(true);
    await recordAndReplayBehindProxy([curl, nodeFetch, httpx(PYTHON)], cleanups);
  }, 180_000);
});
