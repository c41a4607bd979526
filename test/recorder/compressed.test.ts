import { mkdtemp } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, constants, createBrotliCompress, createDeflate, createGzip, deflateSync, gzipSync } from 'node:zlib';
import { setupServer } from 'msw/node';
import { fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCassette } from '../../src/cassette/index.js';
import { cassetteDispatcher, cassetteHandlers } from '../../src/replayer/index.js';
import { type LongRunning, startBench } from '../helpers/cli.js';
import { sleep, startServer } from '../helpers/servers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const CODINGS = ['gzip', 'deflate', 'br'] as const;
type Coding = (typeof CODINGS)[number];
const compressor = (c: Coding) => (c === 'gzip' ? createGzip() : c === 'deflate' ? createDeflate() : createBrotliCompress());
const whole = (c: Coding, b: Buffer) => (c === 'gzip' ? gzipSync(b) : c === 'deflate' ? deflateSync(b) : brotliCompressSync(b));
const JSON_BODY = { access: 'granted', items: [1, 2, 3], text: 'héllo' };

/** A server that compresses as real ones do: SSE flushed per event, JSON whole. Keeps the exact bytes it sent. */
async function compressingServer() {
  const sent = new Map<string, Buffer[]>();
  const server = await startServer(async (req, res) => {
    const [, kind, coding] = (req.url ?? '').split('/') as [string, string, Coding];
    const out: Buffer[] = [];
    sent.set(req.url ?? '', out);
    if (kind === 'json') {
      const bytes = whole(coding, Buffer.from(JSON.stringify(JSON_BODY)));
      out.push(bytes);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding, 'content-length': bytes.byteLength });
      res.end(bytes);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': coding });
    const z = compressor(coding);
    z.on('data', (d: Buffer) => {
      out.push(d);
      res.write(d);
    });
    const flush = coding === 'br' ? constants.BROTLI_OPERATION_FLUSH : constants.Z_SYNC_FLUSH;
    for (let k = 0; k < 5; k++) {
      z.write(`event: tick\ndata: {"k":${k}}\n\n`);
      await new Promise<void>((r) => z.flush(flush, () => r()));
      await sleep(5);
    }
    z.end();
    z.on('end', () => res.end());
  });
  cleanups.push(() => server.close());
  return { ...server, sent };
}

/** The raw bytes of a response, undecoded, as a client that does not decompress sees them. */
function rawGet(url: string): Promise<{ headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'accept-encoding': 'gzip, deflate, br' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

function track(p: LongRunning): LongRunning {
  cleanups.push(() => {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
  });
  return p;
}

describe('compressed responses', () => {
  it('reach the client byte for byte, are recorded decoded (events, JSON structure), and replay encoded again', async () => {
    const origin = await compressingServer();
    const file = join(await mkdtemp(join(tmpdir(), 'tapedeck-gzip-')), 'compressed.yaml');
    const proxy = track(await startBench(['proxy', '--target', origin.url, '--port', '0', '--cassette', file]));
    for (const coding of CODINGS) {
      for (const kind of ['sse', 'json']) {
        const path = `/${kind}/${coding}`;
        const raw = await rawGet(`${proxy.url}${path}`);
        expect(raw.headers['content-encoding']).toBe(coding);
        expect(Buffer.compare(raw.body, Buffer.concat(origin.sent.get(path) ?? []))).toBe(0);
      }
    }
    // Node's fetch, like most SDKs, asks for gzip and decodes it.
    expect(await (await fetch(`${proxy.url}/json/gzip`)).json()).toEqual(JSON_BODY);
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);

    const cassette = await loadCassette(file);
    for (const coding of CODINGS) {
      const sse = cassette.interactions.find((i) => i.request.path === `/sse/${coding}`)?.response;
      expect(sse?.encoding).toBe(coding);
      expect(sse?.stream?.events.map((e) => e.data)).toEqual([0, 1, 2, 3, 4].map((k) => `{"k":${k}}`));
      const json = cassette.interactions.find((i) => i.request.path === `/json/${coding}`)?.response;
      expect(json?.encoding).toBe(coding);
      expect(json?.body).toEqual({ json: JSON_BODY });
    }

    const replay = track(await startBench(['replay', '--cassette', file, '--port', '0', '--quiet', '--lenient']));
    for (const coding of CODINGS) {
      const res = await fetch(`${replay.url}/sse/${coding}`, { headers: { 'accept-encoding': coding } });
      expect(res.headers.get('content-encoding')).toBe(coding);
      expect((await res.text()).match(/data: .*/g)).toEqual([0, 1, 2, 3, 4].map((k) => `data: {"k":${k}}`));
      const json = await fetch(`${replay.url}/json/${coding}`, { headers: { 'accept-encoding': coding } });
      expect(json.headers.get('content-encoding')).toBe(coding);
      expect(await json.json()).toEqual(JSON_BODY);
    }
    replay.child.kill('SIGTERM');
    await replay.exit();

    // The in-process doors give fetch the same encoded answers, which fetch decodes as it would off the network.
    const named = [{ name: file, cassette }];
    const msw = setupServer(...cassetteHandlers(named, { mode: 'lenient' }).handlers);
    msw.listen();
    try {
      expect(await (await fetch('http://api.test/json/br')).json()).toEqual(JSON_BODY);
      expect((await (await fetch('http://api.test/sse/gzip')).text()).match(/data: .*/g)).toHaveLength(5);
    } finally {
      msw.close();
    }
    const dispatcher = cassetteDispatcher(named, { mode: 'lenient' });
    expect(await (await undiciFetch('http://api.test/json/deflate', { dispatcher })).json()).toEqual(JSON_BODY);
    expect((await (await undiciFetch('http://api.test/sse/br', { dispatcher })).text()).match(/data: .*/g)).toHaveLength(5);
  }, 60_000);
});
