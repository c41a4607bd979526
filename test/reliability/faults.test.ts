import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { setupServer } from 'msw/node';
import { fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type Cassette, decodeBody, parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { type RecordingProxy, startRecordingProxy } from '../../src/recorder/index.js';
import { cassetteDispatcher, cassetteHandlers, startReplayServer } from '../../src/replayer/index.js';
import { parseSseText } from '../../src/sse/index.js';
import { readBody, sleep, startServer, type TestServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A server with a healthy `/ok` route beside the faulty one, behind a recording proxy. */
async function faulty(fault: (res: ServerResponse) => void | Promise<void>, proxyOptions: { headersTimeoutMs?: number } = {}) {
  const server: TestServer = await startServer(async (req, res) => {
    await readBody(req);
    if (req.url === '/ok') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
      return;
    }
    await fault(res);
  });
  cleanups.push(() => server.close());
  const proxy: RecordingProxy = await startRecordingProxy({ target: server.url, ...proxyOptions, log: () => {} });
  cleanups.push(() => proxy.close());
  return { server, proxy };
}

/** Reads a body fully, or the error reading it raised. */
async function readAll(res: Response): Promise<{ text: string; error?: Error }> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { text };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error: error as Error };
  }
}

async function replayOf(cassette: Cassette) {
  const replay = await startReplayServer([{ name: 'fault.yaml', cassette: parseCassette(serializeCassette(cassette)) }]);
  cleanups.push(() => replay.close());
  return replay;
}

async function stillServes(proxy: RecordingProxy) {
  const res = await fetch(`${proxy.url}/ok`);
  expect(await res.json()).toEqual({ ok: true });
}

describe('faults while recording', () => {
  it('upstream refuses the connection: the client gets a 502 JSON error, the cassette a failure, replay the same 502', async () => {
    const gone = await startServer(() => {});
    const url = gone.url;
    await gone.close();
    const proxy = await startRecordingProxy({ target: url, log: () => {} });
    cleanups.push(() => proxy.close());
    const live = await fetch(`${proxy.url}/x`);
    expect(live.status).toBe(502);
    const cassette = await proxy.close();
    expect(cassette.interactions[0]?.failure?.code).toBe('upstream_unreachable');
    const replayed = await fetch(`${(await replayOf(cassette)).url}/x`);
    expect(replayed.status).toBe(502);
    expect(((await replayed.json()) as { error: { code: string } }).error.code).toBe('upstream_unreachable');
  });

  it('upstream resets mid-stream: the client sees the break after the same events, so does a replay', async () => {
    const { proxy } = await faulty(async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: a\ndata: 1\n\n');
      await sleep(30);
      res.socket?.destroy();
    });
    const live = await readAll(await fetch(`${proxy.url}/s`));
    expect(live.error).toBeInstanceOf(TypeError);
    await stillServes(proxy);
    const cassette = await proxy.close();
    expect(cassette.interactions[0]?.response?.stream).toMatchObject({ end: 'broken', events: [{ event: 'a', data: '1' }] });
    const replayed = await readAll(await fetch(`${(await replayOf(cassette)).url}/s`));
    expect(replayed.text).toBe(live.text);
    expect(replayed.error?.message).toBe(live.error?.message);
  });

  it('upstream stalls before headers: a timeout is reported as a transport failure and other requests go on', async () => {
    const { proxy } = await faulty(() => new Promise(() => {}), { headersTimeoutMs: 300 });
    const live = await fetch(`${proxy.url}/stall`);
    expect(live.status).toBe(502);
    expect(((await live.json()) as { error: { code: string } }).error.code).toBe('upstream_timeout');
    await stillServes(proxy);
    const cassette = await proxy.close();
    expect(cassette.interactions[0]?.failure?.code).toBe('upstream_timeout');
    expect((await fetch(`${(await replayOf(cassette)).url}/stall`)).status).toBe(502);
  });

  it('malformed SSE framing reaches the client byte for byte; the cassette and a replay hold what a browser would parse', async () => {
    const garbage = 'data:no-space\nnonsense line\nevent:odd\r\ndata: a\rdata: b\r\n\r\n: comment\nid\nretry: soon\ndata\n\nevent: last\n';
    const { proxy } = await faulty((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(garbage);
    });
    const live = await readAll(await fetch(`${proxy.url}/s`));
    expect(live.text).toBe(garbage);
    const cassette = await proxy.close();
    const replayed = await readAll(await fetch(`${(await replayOf(cassette)).url}/s`));
    expect(parseSseText(replayed.text)).toEqual(parseSseText(garbage));
  });

  it('a single 5 MB event passes through whole, is recorded whole and replays whole', async () => {
    const big = 'x'.repeat(5 * 1024 * 1024);
    const { proxy } = await faulty((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: huge\ndata: ${big}\n\n`);
    });
    const live = await readAll(await fetch(`${proxy.url}/s`));
    expect(parseSseText(live.text)).toEqual([{ kind: 'event', event: 'huge', data: big }]);
    await stillServes(proxy);
    const cassette = await proxy.close();
    expect(cassette.interactions[0]?.response?.stream?.events[0]?.data?.length).toBe(big.length);
    const replayed = await readAll(await fetch(`${(await replayOf(cassette)).url}/s`));
    expect(replayed.text.length).toBe(live.text.length);
  });

  it('a stream that closes without its sentinel is recorded as closed by the server, and replays the same way', async () => {
    const { proxy } = await faulty((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('event: a\ndata: 1\n\nevent: b\ndata: 2\n\n');
    });
    const live = await readAll(await fetch(`${proxy.url}/s`));
    expect(live.error).toBeUndefined();
    const cassette = await proxy.close();
    expect(cassette.interactions[0]?.response?.stream?.end).toBe('server-closed');
    expect(cassette.interactions[0]?.response?.stream?.events.map((e) => e.data)).toEqual(['1', '2']);
    const replayed = await readAll(await fetch(`${(await replayOf(cassette)).url}/s`));
    expect(replayed).toEqual(live);
  });

  it('a body shorter than its Content-Length: the client sees those bytes, then the break; every replay door does the same', async () => {
    const { proxy } = await faulty(async (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      await sleep(30);
      res.socket?.destroy();
    });
    const live = await readAll(await fetch(`${proxy.url}/cut`));
    expect(live.text).toBe('{"partial":');
    expect(live.error).toBeInstanceOf(TypeError);
    await stillServes(proxy);
    const cassette = await proxy.close();
    expect(cassette.interactions[0]?.failure?.code).toBe('upstream_reset');
    expect(cassette.interactions[0]?.response?.body).toEqual({ text: '{"partial":' });

    const replayed = await readAll(await fetch(`${(await replayOf(cassette)).url}/cut`));
    expect(replayed.text).toBe(live.text);
    expect(replayed.error).toBeInstanceOf(TypeError);
    const named = [{ name: 'cut.yaml', cassette }];
    const viaUndici = await readAll(
      (await undiciFetch('http://api.test/cut', { dispatcher: cassetteDispatcher(named) })) as unknown as Response,
    );
    expect(viaUndici.text).toBe(live.text);
    expect(viaUndici.error).toBeInstanceOf(TypeError);
    const msw = setupServer(...cassetteHandlers(named).handlers);
    msw.listen();
    try {
      const viaMsw = await readAll(await fetch('http://api.test/cut'));
      expect(viaMsw.text).toBe(live.text);
      expect(viaMsw.error).toBeInstanceOf(TypeError);
    } finally {
      msw.close();
    }
  });

  it('a download the client abandons is recorded as client_closed with the bytes it had, not as a whole body', async () => {
    const { proxy } = await faulty(async (res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let k = 0; k < 200 && !res.destroyed; k++) {
        res.write(Buffer.alloc(1024, k));
        await sleep(5);
      }
      res.end();
    });
    const controller = new AbortController();
    const res = await fetch(`${proxy.url}/download`, { signal: controller.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let got = 0;
    while (got < 4096) got += (await reader.read()).value?.byteLength ?? 0;
    controller.abort();
    await sleep(100);
    await stillServes(proxy);
    const cassette = await proxy.close();
    const download = cassette.interactions[0];
    expect(download?.failure?.code).toBe('client_closed');
    const kept = decodeBody(download?.response?.body).byteLength;
    expect(kept).toBeGreaterThanOrEqual(got);
    expect(kept).toBeLessThan(200 * 1024);
    // Replayed, the same bytes come and then nothing more, as for the recorded client.
    const again = await fetch(`${(await replayOf(cassette)).url}/download`);
    const r = (again.body as ReadableStream<Uint8Array>).getReader();
    let bytes = 0;
    while (bytes < kept) bytes += (await r.read()).value?.byteLength ?? 0;
    expect(bytes).toBe(kept);
    const next = await Promise.race([r.read().then(() => 'more'), sleep(300).then(() => 'open')]);
    expect(next).toBe('open');
    await r.cancel();
  });

  it('a reset on a response that ends with its connection (no length, no chunking) is a break, not a clean end, live and replayed', async () => {
    // Written by hand: node:http would add chunking. The server then resets (RST), as a crashing upstream does.
    const raw = createTcpServer((socket) => {
      socket.once('data', (request) => {
        const sse = request.toString().startsWith('GET /sse');
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: ${sse ? 'text/event-stream' : 'text/plain'}\r\nconnection: close\r\n\r\n${sse ? 'event: a\ndata: 1\n\n' : 'partial text'}`,
        );
        setTimeout(() => socket.resetAndDestroy(), 50);
      });
    });
    raw.listen(0, '127.0.0.1');
    await once(raw, 'listening');
    cleanups.push(async () => raw.close());
    const proxy = await startRecordingProxy({ target: `http://127.0.0.1:${(raw.address() as AddressInfo).port}`, log: () => {} });
    cleanups.push(() => proxy.close());
    const sse = await readAll(await fetch(`${proxy.url}/sse`));
    expect(sse.text).toBe('event: a\ndata: 1\n\n');
    expect(sse.error).toBeInstanceOf(TypeError);
    const body = await readAll(await fetch(`${proxy.url}/body`));
    expect(body.text).toBe('partial text');
    expect(body.error).toBeInstanceOf(TypeError);
    const cassette = await proxy.close();
    expect(cassette.interactions[0]?.response?.stream).toMatchObject({ end: 'broken', events: [{ event: 'a', data: '1' }] });
    expect(cassette.interactions[1]?.failure?.code).toBe('upstream_reset');
    const replay = await replayOf(cassette);
    expect(await readAll(await fetch(`${replay.url}/sse`))).toMatchObject({ text: sse.text, error: expect.any(TypeError) });
    expect(await readAll(await fetch(`${replay.url}/body`))).toMatchObject({ text: body.text, error: expect.any(TypeError) });
  });
});
