import { once } from 'node:events';
import { type AddressInfo, connect as connectTcp } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { type Cassette, parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { startReplayServer } from '../../src/replayer/index.js';

type Msg = Record<string, unknown>;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A toy app-server: JSON-RPC without "jsonrpc", a server request for approval mid-turn, as codex app-server does. */
async function startToyRpcServer(): Promise<string> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(wss, 'listening');
  wss.on('connection', (ws) => {
    const send = (m: Msg) => ws.send(JSON.stringify(m));
    ws.on('message', (raw) => {
      const m = JSON.parse(String(raw)) as Msg;
      if (m.method === 'initialize') send({ id: m.id, result: { userAgent: 'toy/1.0' } });
      if (m.method === 'turn/start') {
        send({ id: m.id, result: { turn: { id: 't1', status: 'inProgress' } } });
        send({ method: 'turn/started', params: { turnId: 't1' } });
        send({ id: 0, method: 'item/commandExecution/requestApproval', params: { itemId: 'call_1', command: 'echo hi' } });
      }
      if (m.id === 0 && 'result' in m) {
        send({ method: 'serverRequest/resolved', params: { requestId: 0 } });
        send({ method: 'item/completed', params: { item: { type: 'commandExecution', exitCode: 0, aggregatedOutput: 'hi\n' } } });
        send({ method: 'turn/completed', params: { turn: { id: 't1', status: 'completed' } } });
      }
    });
  });
  cleanups.push(() => new Promise((r) => wss.close(r)));
  return `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
}

/** A client that keeps every message and lets a test wait for one. */
async function connect(url: string) {
  const ws = new WebSocket(url);
  cleanups.push(() => ws.terminate());
  const got: Msg[] = [];
  const waiting: { match: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];
  ws.on('message', (raw) => {
    const m = JSON.parse(String(raw)) as Msg;
    got.push(m);
    for (const w of [...waiting]) {
      if (!w.match(m)) continue;
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(m);
    }
  });
  await once(ws, 'open');
  return {
    ws,
    got,
    send: (m: Msg) => ws.send(JSON.stringify(m)),
    next: (match: (m: Msg) => boolean) =>
      new Promise<Msg>((resolve) => {
        const seen = got.find(match);
        if (seen) resolve(seen);
        else waiting.push({ match, resolve });
      }),
  };
}

/** The bench-like client: handshake, a turn, the approval answered. */
async function runTurn(url: string, ids: { init: number; turn: number }, decision = 'accept') {
  const c = await connect(url);
  c.send({ id: ids.init, method: 'initialize', params: { clientInfo: { name: 'bench', version: '0.1' } } });
  await c.next((m) => m.id === ids.init);
  c.send({ method: 'initialized' });
  const beforeTurn = c.got.length;
  c.send({ id: ids.turn, method: 'turn/start', params: { threadId: 'th1', input: [{ type: 'text', text: 'run echo hi' }] } });
  const approval = await c.next((m) => m.method === 'item/commandExecution/requestApproval');
  const beforeAnswer = c.got.map((m) => m.method ?? `response ${String(m.id)}`);
  c.send({ id: approval.id, result: { decision } });
  return { c, beforeTurn, beforeAnswer };
}

async function record(): Promise<Cassette> {
  const upstream = await startToyRpcServer();
  const proxy = await startRecordingProxy({ target: upstream.replace(/^ws/, 'http') });
  cleanups.push(() => proxy.close());
  const { c } = await runTurn(`${proxy.url.replace(/^http/, 'ws')}/rpc`, { init: 1, turn: 2 });
  await c.next((m) => m.method === 'turn/completed');
  c.ws.close(1000, 'bye');
  await once(c.ws, 'close');
  const cassette = await proxy.close();
  // Through the writer and the loader: what is replayed is what a cassette file holds.
  return parseCassette(serializeCassette(cassette));
}

describe('WebSocket record and replay', () => {
  it('records each frame both ways, with direction, JSON kept readable, and the after link of every server frame', async () => {
    const cassette = await record();
    expect(cassette.interactions).toHaveLength(1);
    const [session] = cassette.interactions;
    expect(session?.request).toMatchObject({ method: 'GET', path: '/rpc' });
    expect(session?.response?.status).toBe(101);
    const ws = session?.response?.websocket;
    expect(ws?.end).toBe('client-closed');
    const frames = ws?.frames ?? [];
    const label = (f: (typeof frames)[number]) =>
      `${f.from} ${String((f.json as Msg | undefined)?.method ?? (f.close ? 'close' : 'response'))}`;
    expect(frames.map(label)).toEqual([
      'client initialize',
      'server response',
      'client initialized',
      'client turn/start',
      'server response',
      'server turn/started',
      'server item/commandExecution/requestApproval',
      'client response',
      'server serverRequest/resolved',
      'server item/completed',
      'server turn/completed',
      'client close',
    ]);
    const seqOf = (i: number) => frames[i]?.seq;
    // The approval request followed turn/start; the resolution followed the client's answer.
    expect(frames[6]?.after).toBe(seqOf(3));
    expect(frames[8]?.after).toBe(seqOf(7));
    expect(frames[7]?.json).toEqual({ id: 0, result: { decision: 'accept' } });
    expect(frames[11]?.close).toEqual({ code: 1000, reason: 'bye' });
  });

  it('replays the session: the server request only after the client frame it followed, answers matched by content, ids by position', async () => {
    const cassette = await record();
    const replay = await startReplayServer([{ name: 'rpc', cassette }]);
    cleanups.push(() => replay.close());
    // Another client numbers its requests differently: responses come back with its own ids.
    const { c, beforeTurn, beforeAnswer } = await runTurn(`${replay.url.replace(/^http/, 'ws')}/rpc`, { init: 101, turn: 102 });
    expect(c.got[0]).toEqual({ id: 101, result: { userAgent: 'toy/1.0' } });
    expect(beforeTurn).toBe(1);
    expect(beforeAnswer).toEqual(['response 101', 'response 102', 'turn/started', 'item/commandExecution/requestApproval']);
    expect(c.got[1]).toMatchObject({ id: 102, result: { turn: { id: 't1' } } });
    const done = await c.next((m) => m.method === 'turn/completed');
    expect(done).toEqual({ method: 'turn/completed', params: { turn: { id: 't1', status: 'completed' } } });
    expect(c.got.map((m) => m.method ?? 'response')).toEqual([
      'response',
      'response',
      'turn/started',
      'item/commandExecution/requestApproval',
      'serverRequest/resolved',
      'item/completed',
      'turn/completed',
    ]);
    expect(replay.engine.misses).toEqual([]);
  });

  it('reports a client frame that matches nothing like an unmatched request, and closes the socket with 1008', async () => {
    const cassette = await record();
    const replay = await startReplayServer([{ name: 'rpc', cassette }]);
    cleanups.push(() => replay.close());
    const { c } = await runTurn(`${replay.url.replace(/^http/, 'ws')}/rpc`, { init: 1, turn: 2 }, 'decline');
    const [code, reason] = (await once(c.ws, 'close')) as [number, Buffer];
    expect([code, String(reason)]).toEqual([1008, 'tapedeck_unmatched_frame']);
    expect(replay.engine.misses).toHaveLength(1);
    expect(replay.engine.misses[0]?.message).toMatch(
      /no recorded interaction matches WS \/rpc frame .*frame\.json\.result\.decision: recorded "accept", got "decline"/,
    );
    // Nothing the server sent after the approval was released: its cause never came.
    expect(c.got.some((m) => m.method === 'serverRequest/resolved')).toBe(false);
  });

  it('answers a plain HTTP request to a recorded WebSocket path with 426', async () => {
    const cassette = await record();
    const replay = await startReplayServer([{ name: 'rpc', cassette }]);
    cleanups.push(() => replay.close());
    const res = await fetch(`${replay.url}/rpc`);
    expect(res.status).toBe(426);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('tapedeck_websocket_only');
  });

  it('forwards a handshake path as the client wrote it: dot segments, escapes and braces reach the server and the cassette', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(wss, 'listening');
    cleanups.push(() => new Promise((r) => wss.close(r)));
    const seen: string[] = [];
    wss.on('connection', (ws, req) => {
      seen.push(req.url ?? '');
      ws.close(1000);
    });
    const proxy = await startRecordingProxy({ target: `http://127.0.0.1:${(wss.address() as AddressInfo).port}` });
    cleanups.push(() => proxy.close());
    const path = '/a/./b/../ws%7e?q={x}&r=%2F';
    // A raw handshake: any WebSocket client library would read the address as a URL and resolve the dots itself.
    const socket = connectTcp(Number(new URL(proxy.url).port), '127.0.0.1');
    cleanups.push(() => socket.destroy());
    await once(socket, 'connect');
    socket.write(
      `GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
    );
    const [head] = (await once(socket, 'data')) as [Buffer];
    expect(head.toString('latin1')).toMatch(/^HTTP\/1\.1 101 /);
    expect(seen).toEqual([path]);
    socket.destroy();
    expect((await proxy.close()).interactions[0]?.request.path).toBe(path);
  });
});
