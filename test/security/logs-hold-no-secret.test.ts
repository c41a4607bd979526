import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { type Cassette, serializeCassette } from '../../src/cassette/index.js';
import { type LongRunning, startBench } from '../helpers/cli.js';
import { startServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const curl = promisify(execFile);
// A key in the query, and a token sent as a credential and repeated in the path: a log line shows neither.
const KEY = 'Kq7ZX2MPK9RWN4BV8HJD';
const TOKEN = 'Tz3vN7mK2pL9rT4yBq8x';
const asked = [
  ['-sS', `/v1/models?api_key=${KEY}&limit=2`],
  ['-sS', '-H', `Authorization: Bearer ${TOKEN}`, `/v1/tokens/${TOKEN}`],
] as const;

async function running(args: string[]): Promise<LongRunning> {
  const bench = await startBench(args);
  cleanups.push(async () => {
    if (bench.child.exitCode === null) bench.child.kill('SIGKILL');
    await bench.exit();
  });
  return bench;
}

async function askAll(url: string): Promise<void> {
  for (const a of asked) await curl('curl', [...a.slice(0, -1), `${url}${a.at(-1)}`]);
}

describe('log lines', () => {
  it('bench replay logs each request with its secrets replaced, as the cassette has them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-log-replay-'));
    const file = join(dir, 'keys.yaml');
    const cassette: Cassette = {
      version: 1,
      meta: { recorder: 't', target: 'http://127.0.0.1:1', recordedAt: '2026-01-01T00:00:00.000Z' },
      interactions: [
        {
          seq: 1,
          request: { method: 'GET', path: `/v1/models?api_key=${KEY}&limit=2`, headers: {} },
          response: { status: 200, headers: { 'content-type': 'application/json' }, body: { json: { data: [] } } },
          timing: { start: 0, end: 1 },
        },
        {
          seq: 2,
          request: { method: 'GET', path: `/v1/tokens/${TOKEN}`, headers: { authorization: `Bearer ${TOKEN}` } },
          response: { status: 200, headers: { 'content-type': 'application/json' }, body: { json: { ok: true } } },
          timing: { start: 2, end: 3 },
        },
      ],
    };
    await writeFile(file, serializeCassette(cassette));
    const replay = await running(['replay', file, '--port', '0']);
    await askAll(replay.url);
    replay.child.kill('SIGINT');
    await replay.exit();
    const log = replay.stderr();
    expect(log).toMatch(/GET \/v1\/models\?api_key=%3Credacted%3Aapi_key%3E&limit=2 → keys\.yaml #1 200/);
    expect(log).toMatch(/GET \/v1\/tokens\/<redacted:authorization> → keys\.yaml #2 200/);
    expect(log).not.toContain(KEY);
    expect(log).not.toContain(TOKEN);
  }, 60_000);

  it('bench proxy logs an upstream that broke with the path of the request secret-free', async () => {
    // Every connection reset before an answer: each request gets a 502 and a log line naming it.
    const server = await startServer((req) => {
      req.socket.destroy();
    });
    cleanups.push(() => server.close());
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-log-proxy-'));
    const proxy = await running(['proxy', '--target', server.url, '--port', '0', '--cassette', join(dir, 'broken.yaml')]);
    await askAll(proxy.url);
    proxy.child.kill('SIGINT');
    await proxy.exit();
    const log = proxy.stderr();
    expect(log).toMatch(/failed \(upstream_\w+\) for GET \/v1\/models\?api_key=%3Credacted%3Aapi_key%3E&limit=2/);
    expect(log).toMatch(/failed \(upstream_\w+\) for GET \/v1\/tokens\/<redacted:authorization>/);
    expect(log).not.toContain(KEY);
    expect(log).not.toContain(TOKEN);
  }, 60_000);
});
