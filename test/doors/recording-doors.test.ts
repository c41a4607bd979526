import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { setupServer } from 'msw/node';
import { request } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { loadCassette } from '../../src/cassette/index.js';
import { cassetteDispatcher, cassetteHandlers } from '../../src/doors/index.js';
import { loadCassetteSet } from '../../src/replayer/index.js';
import { readBody, startServer } from '../helpers/servers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A server that counts what reaches it: JSON echoing the path, query and body, a short SSE stream, gzip. */
async function countingServer() {
  const hits: string[] = [];
  const server = await startServer(async (req, res) => {
    res.sendDate = false;
    hits.push(`${req.method} ${req.url}`);
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let k = 0; k < 5; k++) res.write(`data: {"k":${k}}\n\n`);
      res.end();
      return;
    }
    const answer = JSON.stringify({ path: url.pathname, v: url.searchParams.get('v'), sent: (await readBody(req)).toString() });
    if (url.pathname.startsWith('/gz')) {
      const bytes = gzipSync(answer);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bytes.byteLength });
      res.end(bytes);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(answer);
  });
  cleanups.push(() => server.close());
  return { ...server, hits };
}

async function folder() {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-doors-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** What a client sees of each request: fetch for GETs and the stream, undici's own `request` for a POST. */
async function client(base: string, dispatcher: unknown, paths: string[]): Promise<string[]> {
  const seen: string[] = [];
  for (const path of paths) {
    if (path.startsWith('POST ')) {
      const { statusCode, body } = await request(`${base}${path.slice(5)}`, {
        method: 'POST',
        body: JSON.stringify({ hello: 'wörld' }),
        headers: { 'content-type': 'application/json' },
        ...(dispatcher ? { dispatcher: dispatcher as never } : {}),
      });
      seen.push(`${statusCode} ${await body.text()}`);
      continue;
    }
    const res = await fetch(`${base}${path}`, dispatcher ? ({ dispatcher } as RequestInit) : {});
    seen.push(`${res.status} ${await res.text()}`);
  }
  return seen;
}

it('the undici door records every request with record: record, then replays what it has and records only what it misses', async () => {
  const server = await countingServer();
  const file = join(await folder(), 'doors.yaml');

  const recording = cassetteDispatcher([], { record: 'record', saveTo: file });
  const first = await client(server.url, recording, ['/a?v=1', '/stream', '/gz?v=2', 'POST /echo']);
  expect((await recording.save())?.interactions).toHaveLength(4);
  expect(server.hits).toEqual(['GET /a?v=1', 'GET /stream', 'GET /gz?v=2', 'POST /echo']);

  // Topped up: what the cassette holds is answered from it; only the two new requests reach the server.
  const topUp = cassetteDispatcher(await loadCassetteSet(file), { record: 'missing' });
  const second = await client(server.url, topUp, ['/a?v=1', '/b?v=1', '/stream', 'POST /echo', 'POST /echo2']);
  await topUp.close();
  expect(server.hits.slice(4)).toEqual(['GET /b?v=1', 'POST /echo2']);
  expect(topUp.engine?.misses).toEqual([]);
  expect(second).toEqual([
    first[0],
    '200 {"path":"/b","v":"1","sent":""}',
    first[1],
    first[3],
    '200 {"path":"/echo2","v":null,"sent":"{\\"hello\\":\\"wörld\\"}"}',
  ]);
  const saved = await loadCassette(file);
  expect(saved.interactions.map((i) => `${i.request.method} ${i.request.path}`)).toEqual([
    'GET /a?v=1',
    'GET /stream',
    'GET /gz?v=2',
    'POST /echo',
    'GET /b?v=1',
    'POST /echo2',
  ]);
  expect(saved.interactions[2]?.response?.encoding).toBe('gzip');

  // The server gone, the plain door replays all of it to the same clients.
  await server.close();
  const replay = cassetteDispatcher(await loadCassetteSet(file));
  expect(await client(server.url, replay, ['/a?v=1', '/stream', '/gz?v=2', 'POST /echo', '/b?v=1', 'POST /echo2'])).toEqual([
    ...first,
    second[1],
    second[4],
  ]);
});

it('the MSW door tops a cassette up the same way, and a replay that misses nothing leaves the file alone', async () => {
  const server = await countingServer();
  const file = join(await folder(), 'msw.yaml');
  const record = cassetteHandlers([], { record: 'record', saveTo: file });
  const msw = setupServer(...record.handlers);
  msw.listen({ onUnhandledRequest: 'error' });
  cleanups.push(() => msw.close());
  const first = await client(server.url, undefined, ['/a?v=1', '/stream', '/gz?v=2']);
  await record.save();
  expect(server.hits).toHaveLength(3);
  const before = await stat(file);

  const topUp = cassetteHandlers(await loadCassetteSet(file), { record: 'missing' });
  msw.resetHandlers(...topUp.handlers);
  expect(await client(server.url, undefined, ['/a?v=1', '/stream'])).toEqual([first[0], first[1]]);
  expect(await topUp.save()).toBeUndefined();
  expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);

  const again = cassetteHandlers(await loadCassetteSet(file), { record: 'missing' });
  msw.resetHandlers(...again.handlers);
  expect(await client(server.url, undefined, ['/gz?v=2', '/c'])).toEqual([first[2], '200 {"path":"/c","v":null,"sent":""}']);
  await again.save();
  expect(server.hits).toEqual(['GET /a?v=1', 'GET /stream', 'GET /gz?v=2', 'GET /c']);
  expect((await loadCassette(file)).interactions.map((i) => i.request.path)).toEqual(['/a?v=1', '/stream', '/gz?v=2', '/c']);
});

it('refuses what it cannot record in one line: no file to save to, a second server, an unknown mode', async () => {
  const server = await countingServer();
  const other = await countingServer();
  expect(() => cassetteDispatcher([], { record: 'missing' })).toThrow(/record: 'missing' needs saveTo, the cassette file to write/);
  expect(() => cassetteHandlers([], { record: 'bogus' as never, saveTo: 'x.yaml' })).toThrow(
    /cassetteHandlers record: 'bogus' is not a mode; use 'replay', 'missing' or 'record'/,
  );
  const file = join(await folder(), 'one.yaml');
  const door = cassetteDispatcher([], { record: 'record', saveTo: file });
  await client(server.url, door, ['/a']);
  await expect(client(other.url, door, ['/b'])).rejects.toThrow();
  await expect(fetch(`${other.url}/b`, { dispatcher: door } as unknown as RequestInit).catch((e: Error) => e.cause)).resolves.toMatchObject(
    {
      message: expect.stringMatching(/records one server per cassette: .*one\.yaml records http:\/\/127\.0\.0\.1:\d+, not http/),
    },
  );
  await door.save();
  expect(other.hits).toEqual([]);
  expect((await loadCassette(file)).interactions).toHaveLength(1);
});
