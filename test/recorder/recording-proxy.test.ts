import { execFile } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { type RecordingProxy, startRecordingProxy } from '../../src/recorder/index.js';
import { SseParser } from '../../src/sse/index.js';
import { readBody, startServer, type TestServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(handler: Parameters<typeof startServer>[0]): Promise<{ server: TestServer; proxy: RecordingProxy }> {
  const server = await startServer(handler);
  cleanups.push(() => server.close());
  const proxy = await startRecordingProxy({ target: server.url });
  cleanups.push(() => proxy.close());
  return { server, proxy };
}

/** Reads SSE events from a fetch response one at a time. */
function eventReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const parser = new SseParser();
  const queue: { event?: string | undefined; data?: string | undefined }[] = [];
  return {
    async next() {
      while (queue.length === 0) {
        const { value, done } = await reader.read();
        if (done) return undefined;
        for (const f of parser.push(value)) if (f.kind === 'event') queue.push(f);
      }
      return queue.shift();
    },
    cancel: () => reader.cancel(),
  };
}

function sseHead(res: ServerResponse) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

describe('recording proxy', () => {
  it('delivers each SSE event before the server emits the next one, and records them all in order', async () => {
    // The server emits event k+1 only after the client has acknowledged event k.
    // A proxy that held chunks back would deadlock this exchange.
    let ack: () => void = () => {};
    const emitted: string[] = [];
    const { proxy } = await setup(async (req, res) => {
      if (req.url === '/stream') {
        sseHead(res);
        for (let k = 0; k < 8; k++) {
          const acked = new Promise<void>((r) => (ack = r));
          emitted.push(`e${k}`);
          res.write(`event: tick\ndata: {"k":${k}}\n\n`);
          await acked;
        }
        res.end('data: [DONE]\n\n');
      }
    });
    const res = await fetch(`${proxy.url}/stream`);
    const events = eventReader(res.body as ReadableStream<Uint8Array>);
    const seen: string[] = [];
    for (let k = 0; k < 8; k++) {
      const ev = await events.next();
      seen.push(ev?.data ?? 'missing');
      // What the client has seen so far is exactly what the server has emitted.
      expect(emitted.length).toBe(k + 1);
      ack();
    }
    expect((await events.next())?.data).toBe('[DONE]');
    expect(seen).toEqual(Array.from({ length: 8 }, (_, k) => `{"k":${k}}`));

    const cassette = await proxy.close();
    const stream = cassette.interactions[0]?.response?.stream;
    expect(stream?.end).toBe('server-closed');
    expect(stream?.events.map((e) => e.data)).toEqual([...seen, '[DONE]']);
    const offsets = stream?.events.map((e) => e.at) ?? [];
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
  });

  it('links each event to the last request the server had received (subscribe, then post)', async () => {
    let stream: ServerResponse | undefined;
    const { proxy } = await setup(async (req, res) => {
      if (req.url === '/stream') {
        sseHead(res);
        res.write('event: session.heartbeat\ndata: {}\n\n');
        stream = res;
        return;
      }
      if (req.url === '/events' && req.method === 'POST') {
        await readBody(req);
        res.writeHead(202, { 'content-type': 'application/json' });
        res.end('{"queued":true}');
        stream?.write('event: response.in_progress\ndata: {}\n\n');
        stream?.write('event: response.completed\ndata: {}\n\n');
        stream?.end('data: [DONE]\n\n');
      }
    });
    const res = await fetch(`${proxy.url}/stream`);
    const events = eventReader(res.body as ReadableStream<Uint8Array>);
    expect((await events.next())?.event).toBe('session.heartbeat');
    const post = await fetch(`${proxy.url}/events`, {
      method: 'POST',
      body: '{"type":"message"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(post.status).toBe(202);
    while (await events.next());

    const cassette = await proxy.close();
    const [sub, posted] = cassette.interactions;
    expect(posted?.request.method).toBe('POST');
    expect(posted?.request.body).toEqual({ json: { type: 'message' } });
    const timeline = sub?.response?.stream?.events.map((e) => [e.event ?? e.data, e.after]);
    expect(timeline).toEqual([
      ['session.heartbeat', 1],
      ['response.in_progress', 2],
      ['response.completed', 2],
      ['[DONE]', 2],
    ]);
  });

  it('never writes the values of secret headers', async () => {
    const secret = `s3cr3t-${Math.random().toString(36).slice(2)}`;
    const { proxy } = await setup(async (req, res) => {
      await readBody(req);
      res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': [`sid=${secret}-a`, `other=${secret}-b`] });
      res.end('ok');
    });
    const res = await fetch(`${proxy.url}/login`, {
      headers: {
        authorization: `Bearer ${secret}-1`,
        cookie: `sid=${secret}-2`,
        'proxy-authorization': `Basic ${secret}-3`,
        'x-api-key': `${secret}-4`,
      },
    });
    expect(await res.text()).toBe('ok');
    expect(res.headers.getSetCookie()).toEqual([`sid=${secret}-a`, `other=${secret}-b`]);
    const text = serializeCassette(await proxy.close());
    expect(text).not.toContain(secret);
    const saved = parseCassette(text).interactions[0];
    expect(saved?.request.headers['x-api-key']).toBe('<redacted:x-api-key>');
    expect(saved?.request.headers.authorization).toBe('<redacted:authorization>');
    expect(saved?.response?.headers['set-cookie']).toEqual(['<redacted:set-cookie>', '<redacted:set-cookie>']);
  });

  it('answers 502 with a JSON error when the target is unreachable, and records the failure', async () => {
    const gone = await startServer(() => {});
    const url = gone.url;
    await gone.close();
    const lines: string[] = [];
    const proxy = await startRecordingProxy({ target: url, log: (l) => lines.push(l) });
    cleanups.push(() => proxy.close());
    const res = await fetch(`${proxy.url}/health`);
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { code: string } };
    expect(body.error.code).toBe('upstream_unreachable');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^upstream http:\/\/127\.0\.0\.1:\d+ failed \(upstream_unreachable\) for GET \/health/);
    const [failed] = (await proxy.close()).interactions;
    expect(failed?.failure?.code).toBe('upstream_unreachable');
    expect(failed?.response).toBeUndefined();
  });

  it('keeps binary and text bodies byte for byte, and serves concurrent requests in their true order', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => (i * 37) % 256));
    const { proxy } = await setup(async (req, res) => {
      const body = await readBody(req);
      if (req.url === '/bin') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(bytes);
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`echo:${body.toString()}`);
      }
    });
    const [bin, text] = await Promise.all([fetch(`${proxy.url}/bin`), fetch(`${proxy.url}/text`, { method: 'POST', body: 'héllo' })]);
    expect(Buffer.from(await bin.arrayBuffer())).toEqual(bytes);
    expect(await text.text()).toBe('echo:héllo');
    const cassette = parseCassette(serializeCassette(await proxy.close()));
    const byPath = Object.fromEntries(cassette.interactions.map((i) => [i.request.path, i]));
    expect(byPath['/bin']?.response?.body).toEqual({ base64: bytes.toString('base64') });
    expect(byPath['/text']?.response?.body).toEqual({ text: 'echo:héllo' });
    expect(cassette.interactions.map((i) => i.seq)).toEqual([1, 2]);
  });

  it('passes a response head on before a body the server holds back (an NDJSON stream, a long poll), and records the body', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const { proxy } = await setup(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.flushHeaders();
      // The body waits for the client to have the head: a proxy holding the head back for it would hang here.
      await held;
      res.end('{"n":1}\n{"n":2}\n');
    });
    const res = await fetch(`${proxy.url}/poll`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    release();
    expect(await res.text()).toBe('{"n":1}\n{"n":2}\n');
    const [poll] = parseCassette(serializeCassette(await proxy.close())).interactions;
    expect(poll?.response?.body).toEqual({ text: '{"n":1}\n{"n":2}\n' });
  });

  it('forwards and records a path exactly as curl sent it: dot segments, an escape, braces in the query', async () => {
    const seen: string[] = [];
    const { proxy } = await setup((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    const path = '/a/./b/../c%7e?q={x}&r=%2F';
    // curl in its own process, awaited: the proxy answers it from this one.
    const { stdout } = await promisify(execFile)('curl', ['-sS', '--path-as-is', '--globoff', `${proxy.url}${path}`], { encoding: 'utf8' });
    expect(stdout).toBe('ok');
    expect(seen).toEqual([path]);
    expect((await proxy.close()).interactions[0]?.request.path).toBe(path);
  });

  it('records a stream the client abandons as closed by the client', async () => {
    const { proxy } = await setup(async (_req, res) => {
      sseHead(res);
      res.write('data: first\n\n');
      await new Promise((r) => res.on('close', r));
    });
    const res = await fetch(`${proxy.url}/s`);
    const events = eventReader(res.body as ReadableStream<Uint8Array>);
    expect((await events.next())?.data).toBe('first');
    await events.cancel();
    await expect.poll(() => proxy.cassette().interactions[0]?.response?.stream?.end).toBe('client-closed');
  });

  it('records a stream the client let go of just before the stop as closed by the client, not by the proxy', async () => {
    // A probe that closes its stream and returns at once: the stop comes before the proxy has heard the close.
    const { proxy } = await setup((_req, res) => {
      sseHead(res);
      res.write('data: first\n\n');
    });
    const controller = new AbortController();
    const events = eventReader((await fetch(`${proxy.url}/stream`, { signal: controller.signal })).body as ReadableStream<Uint8Array>);
    expect((await events.next())?.data).toBe('first');
    controller.abort();
    const cassette = await proxy.close();
    expect(cassette.interactions[0]?.response?.stream?.end).toBe('client-closed');
  });

  it('still ends a stream its client keeps open as proxy-closed when stopped', async () => {
    const { proxy } = await setup((_req, res) => {
      sseHead(res);
      res.write('data: first\n\n');
    });
    const events = eventReader((await fetch(`${proxy.url}/stream`)).body as ReadableStream<Uint8Array>);
    expect((await events.next())?.data).toBe('first');
    const cassette = await proxy.close();
    expect(cassette.interactions[0]?.response?.stream?.end).toBe('proxy-closed');
    await events.cancel().catch(() => {});
  });
});
