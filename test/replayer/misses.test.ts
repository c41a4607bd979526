import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type Cassette, serializeCassette } from '../../src/cassette/index.js';
import { MISSES_KEPT, ReplayEngine } from '../../src/replayer/index.js';
import { type LongRunning, startBench } from '../helpers/cli.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const cassette: Cassette = {
  version: 1,
  meta: { recorder: 'test', target: 'http://x', recordedAt: '2026-01-01T00:00:00.000Z' },
  interactions: [
    {
      seq: 1,
      request: { method: 'GET', path: '/v1/models', headers: {} },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: { json: { data: [] } } },
      timing: { start: 0 },
    },
  ],
};

describe('unmatched requests', () => {
  it('answer a status the openai SDK does not retry: one request, one log line, the nearest recording named', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'tapedeck-miss-')), 'models.yaml');
    await writeFile(file, serializeCassette(cassette));
    const replay: LongRunning = await startBench(['replay', '--cassette', file, '--port', '0']);
    cleanups.push(() => replay.child.kill('SIGKILL'));
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${replay.url}/v1`, maxRetries: 2 });
    const err = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String(err.message)).toMatch(/no recorded interaction matches POST \/v1\/chat\/completions/);
    replay.child.kill('SIGTERM');
    expect(await replay.exit()).toBe(1);
    expect(replay.stderr().match(/no recorded interaction matches POST/g)).toHaveLength(1);
  });

  it('are counted, and only the latest are kept: 30,000 misses cost no memory to speak of', () => {
    const engine = new ReplayEngine([{ name: 'c.yaml', cassette }]);
    globalThis.gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let k = 0; k < 30_000; k++) engine.handle({ method: 'GET', path: `/nothing/${k}`, headers: {}, body: new Uint8Array() });
    globalThis.gc?.();
    expect(engine.missCount).toBe(30_000);
    expect(engine.misses).toHaveLength(MISSES_KEPT);
    expect(engine.misses.at(-1)?.message).toMatch(/\/nothing\/29999/);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(50 * 1024 * 1024);
  });
});
