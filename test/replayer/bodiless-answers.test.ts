import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { setupServer } from 'msw/node';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cassette, parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { cassetteDispatcher, cassetteHandlers, startReplayServer } from '../../src/replayer/index.js';
import { readBody, startServer, type TestServer } from '../helpers/servers.js';

const run = promisify(execFile);

/**
 * Answers that carry no body by definition: a HEAD's content-length names the
 * size a GET would get, and a 204 or 304 has none of its own. Every door gives
 * the client what the real server gave, not a length counted from nothing.
 */

/** HEAD, a conditional GET and a DELETE, as a client asks them. */
const ASKS = [
  { method: 'HEAD', path: '/file', headers: {} },
  { method: 'GET', path: '/file', headers: { 'if-none-match': '"v1"' } },
  { method: 'DELETE', path: '/file', headers: {} },
] as const;

type Seen = { status: number; length: string | null; etag: string | null };

let server: TestServer;
let cassette: Cassette;
let real: Seen[];

async function viaFetch(base: string): Promise<Seen[]> {
  const seen: Seen[] = [];
  for (const a of ASKS) {
    const res = await fetch(`${base}${a.path}`, { method: a.method, headers: a.headers });
    await res.arrayBuffer();
    seen.push({ status: res.status, length: res.headers.get('content-length'), etag: res.headers.get('etag') });
  }
  return seen;
}

beforeAll(async () => {
  server = await startServer(async (req, res) => {
    await readBody(req);
    if (req.method === 'DELETE') {
      res.writeHead(204, { 'x-deleted': 'yes' });
      res.end();
    } else if (req.headers['if-none-match'] === '"v1"') {
      res.writeHead(304, { etag: '"v1"' });
      res.end();
    } else {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5', etag: '"v1"' });
      res.end(req.method === 'HEAD' ? undefined : 'hello');
    }
  });
  real = await viaFetch(server.url);
  const proxy = await startRecordingProxy({ target: server.url });
  expect(await viaFetch(proxy.url)).toEqual(real);
  cassette = parseCassette(serializeCassette(await proxy.close()));
});

afterAll(async () => {
  await server.close();
});

describe('answers with no body by definition', () => {
  it('the real server gives a HEAD its length and a 204 or 304 none', () => {
    expect(real.map((s) => [s.status, s.length])).toEqual([
      [200, '5'],
      [304, null],
      [204, null],
    ]);
  });

  it('the replay server answers curl as the real server did', async () => {
    const replay = await startReplayServer([{ name: 'bodiless.yaml', cassette }]);
    try {
      const heads: string[] = [];
      for (const a of ASKS) {
        const args = ['-sS', '-D', '-', '-o', '/dev/null', '-X', a.method, `${replay.url}${a.path}`];
        if (a.method === 'HEAD') args.splice(0, 0, '-I');
        for (const [k, v] of Object.entries(a.headers)) args.push('-H', `${k}: ${v}`);
        heads.push((await run('curl', args)).stdout);
      }
      expect(heads.map((h) => /^content-length: (.*)\r$/im.exec(h)?.[1] ?? null)).toEqual(real.map((s) => s.length));
      expect(await viaFetch(replay.url)).toEqual(real);
    } finally {
      await replay.close();
    }
  });

  it('the undici door answers as the real server did', async () => {
    const dispatcher = cassetteDispatcher([{ name: 'bodiless.yaml', cassette }]);
    const seen: Seen[] = [];
    for (const a of ASKS) {
      const res = await request(`http://api.test${a.path}`, { method: a.method, headers: a.headers, dispatcher });
      await res.body.arrayBuffer();
      const header = (name: string) => (res.headers[name] as string | undefined) ?? null;
      seen.push({ status: res.statusCode, length: header('content-length'), etag: header('etag') });
    }
    expect(seen).toEqual(real);
  });

  it('the MSW door answers fetch as the real server did', async () => {
    const msw = setupServer(...cassetteHandlers([{ name: 'bodiless.yaml', cassette }]).handlers);
    msw.listen({ onUnhandledRequest: 'error' });
    try {
      expect(await viaFetch('http://api.test')).toEqual(real);
    } finally {
      msw.close();
    }
  });
});
