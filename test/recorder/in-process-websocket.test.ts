import { once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket as UndiciWebSocket } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import type { Cassette } from '../../src/cassette/index.js';
import { cassetteDispatcher } from '../../src/doors/index.js';
import { recordingDispatcher, startRecordingProxy } from '../../src/recorder/index.js';
import { loadCassetteSet, startReplayServer } from '../../src/replayer/index.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A server that greets, answers each message (text, JSON, binary) in two frames, and closes when told; `reached` gets each path. */
async function chattyServer(reached: string[] = []): Promise<string> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(wss, 'listening');
  wss.on('connection', (ws, req) => {
    reached.push(req.url ?? '');
    ws.send(JSON.stringify({ hello: req.url, team: req.headers['x-team'] ?? null }));
    ws.on('message', (data, binary) => {
      if (!binary && String(data) === 'bye') return ws.close(4000, 'asked');
      ws.send(binary ? Buffer.concat([Buffer.from([0xff]), data as Buffer]) : `echo:${String(data)}`, { binary });
      ws.send(JSON.stringify({ done: true }));
    });
  });
  cleanups.push(() => new Promise((r) => wss.close(r)));
  return `http://127.0.0.1:${(wss.address() as AddressInfo).port}`;
}

/** undici's WebSocket, as a user's code opens it: three messages, then `bye`; resolves to what it read, and how it closed. */
async function converse(url: string, dispatcher?: unknown): Promise<string[]> {
  const ws = new UndiciWebSocket(url, dispatcher ? { dispatcher: dispatcher as never } : {});
  ws.binaryType = 'arraybuffer';
  const seen: string[] = [];
  const closed = new Promise<void>((resolve) => {
    ws.addEventListener('close', (e) => {
      seen.push(`close ${e.code} ${e.reason}`);
      resolve();
    });
  });
  let waiting: (() => void) | undefined;
  ws.addEventListener('message', (e) => {
    seen.push(typeof e.data === 'string' ? e.data : `bytes ${Buffer.from(e.data as ArrayBuffer).toString('hex')}`);
    if (seen.length % 2 === 1) waiting?.();
  });
  const reply = () => new Promise<void>((r) => (waiting = r));
  await new Promise((r) => ws.addEventListener('open', r));
  for (const m of ['hi', JSON.stringify({ n: 1 }), new Uint8Array([1, 2, 3])]) {
    const answered = reply();
    ws.send(m);
    await answered;
  }
  ws.send('bye');
  await closed;
  return seen;
}

/** A cassette without what differs between two recordings: times, and when it was made. */
const untimed = (c: Cassette) =>
  c.interactions.map(({ timing: _t, ...i }) => ({
    ...i,
    response: i.response && {
      ...i.response,
      websocket: i.response.websocket && { ...i.response.websocket, frames: i.response.websocket.frames.map(({ at: _a, ...f }) => f) },
    },
  }));

it("records undici's WebSocket in-process as bench proxy records it, and the session replays", async () => {
  const server = await chattyServer();
  const recorder = await recordingDispatcher({ target: server });
  const seen = await converse(`${server.replace('http', 'ws')}/chat?room=1`, recorder);
  await recorder.close();
  const inProcess = recorder.cassette();

  const proxy = await startRecordingProxy({ target: server });
  expect(await converse(`${proxy.url.replace('http', 'ws')}/chat?room=1`)).toEqual(seen);
  const viaProxy = await proxy.close();

  expect(seen).toEqual([
    '{"hello":"/chat?room=1","team":null}',
    'echo:hi',
    '{"done":true}',
    'echo:{"n":1}',
    '{"done":true}',
    'bytes ff010203',
    '{"done":true}',
    'close 4000 asked',
  ]);
  expect(inProcess.interactions).toHaveLength(1);
  const frames = inProcess.interactions[0]?.response?.websocket?.frames ?? [];
  expect(frames.filter((f) => f.from === 'client').map((f) => f.text ?? f.json ?? f.base64)).toEqual(['hi', { n: 1 }, 'AQID', 'bye']);
  expect(untimed(inProcess)).toEqual(untimed(viaProxy));

  const replay = await startReplayServer([{ name: 'in-process', cassette: inProcess }], { port: 0 });
  cleanups.push(() => replay.close());
  expect(await converse(`${replay.url.replace('http', 'ws')}/chat?room=1`)).toEqual(seen);
});

it('ends a session still open when the recorder closes, as the proxy ends its own', async () => {
  const server = await chattyServer();
  const recorder = await recordingDispatcher({ target: server });
  const ws = new UndiciWebSocket(`${server.replace('http', 'ws')}/open`, { dispatcher: recorder as never });
  const closed = new Promise<number>((resolve) => ws.addEventListener('close', (e) => resolve(e.code)));
  await new Promise((r) => ws.addEventListener('message', r));
  await recorder.close();
  expect(await closed).toBe(1001);
  const session = recorder.cassette().interactions[0]?.response?.websocket;
  expect(session?.end).toBe('proxy-closed');
  expect(session?.frames[0]?.from).toBe('server');
});

it('the undici door tops a cassette up with WebSocket sessions: one it holds is replayed, one it lacks is recorded live', async () => {
  const reached: string[] = [];
  const server = await chattyServer(reached);
  const file = join(await mkdtemp(join(tmpdir(), 'tapedeck-ws-door-')), 'ws.yaml');
  const ws = (path: string) => `${server.replace('http', 'ws')}${path}`;

  const recording = cassetteDispatcher([], { record: 'record', saveTo: file });
  const first = await converse(ws('/a'), recording);
  await recording.close();
  const topUp = cassetteDispatcher(await loadCassetteSet(file), { record: 'missing' });
  expect(await converse(ws('/a'), topUp)).toEqual(first);
  const second = await converse(ws('/b'), topUp);
  await topUp.close();
  expect(reached).toEqual(['/a', '/b']);
  expect(topUp.engine?.misses).toEqual([]);
  expect(second[0]).toBe('{"hello":"/b","team":null}');

  // Nothing reaches the server now: both sessions come from the saved cassette.
  const replay = cassetteDispatcher(await loadCassetteSet(file));
  cleanups.push(() => replay.close());
  expect(await converse(ws('/a'), replay)).toEqual(first);
  expect(await converse(ws('/b'), replay)).toEqual(second);
  expect(reached).toEqual(['/a', '/b']);
});
