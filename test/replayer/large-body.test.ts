import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { startBench } from '../helpers/cli.js';
import { readBody, startServer } from '../helpers/servers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Text of `bytes` bytes that no two runs share: an upload as a client makes one. */
const upload = (bytes: number) => randomBytes(bytes / 2).toString('hex');

/** The longest wait of small requests sent one after another until `until` settles. */
async function worstWaitDuring(base: string, until: Promise<unknown>): Promise<{ worst: number; count: number }> {
  let done = false;
  until.finally(() => {
    done = true;
  });
  let worst = 0;
  let count = 0;
  while (!done) {
    const started = performance.now();
    const res = await fetch(`${base}/small`);
    expect(res.status).toBe(200);
    await res.text();
    worst = Math.max(worst, performance.now() - started);
    count++;
  }
  return { worst, count };
}

/** Posts `body` in one request from another socket, resolving with the answer's status. */
function post(base: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/upload`,
      { method: 'POST', headers: { 'content-type': 'text/plain', 'content-length': body.byteLength } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('bench replay and big bodies', () => {
  it('matches a 50 MB upload by its digest while a concurrent small request waits under 200 ms', async () => {
    const server = await startServer(async (req, res) => {
      const body = await readBody(req);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, bytes: body.byteLength }));
    });
    cleanups.push(() => server.close());
    const big = Buffer.from(upload(50 * 1024 * 1024));
    const proxy = await startRecordingProxy({ target: server.url });
    expect(await (await fetch(`${proxy.url}/small`)).json()).toEqual({ path: '/small', bytes: 0 });
    expect(await post(proxy.url, big)).toBe(200);
    const file = join(await mkdtemp(join(tmpdir(), 'tapedeck-big-')), 'big.yaml');
    await proxy.save(file);
    expect((await readFile(file, 'utf8')).length).toBeGreaterThan(50 * 1024 * 1024);

    const replay = await startBench(['replay', '--cassette', file, '--port', '0']);
    cleanups.push(() => replay.child.kill('SIGKILL'));
    // Warm: the small route answered once, as a client's first request would be.
    expect((await fetch(`${replay.url}/small`)).status).toBe(200);
    const uploaded = post(replay.url, big);
    const { worst, count } = await worstWaitDuring(replay.url, uploaded);
    expect(await uploaded).toBe(200);
    expect(count).toBeGreaterThan(1);
    expect(worst, `worst wait ${worst.toFixed(0)} ms over ${count} requests`).toBeLessThan(200);
    // A different body of the same size is a miss, not a match.
    big[0] = big[0] === 0x61 ? 0x62 : 0x61;
    expect(await post(replay.url, big)).toBeGreaterThanOrEqual(400);
  }, 180_000);
});
