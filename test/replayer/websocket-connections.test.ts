import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { startReplayServer } from '../../src/replayer/index.js';
import { startServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** One JSON-RPC exchange over a fresh connection, as `codex exec --remote` makes one per run. */
async function converse(url: string, method: string, params: unknown): Promise<unknown[]> {
  const ws = new WebSocket(url);
  await once(ws, 'open');
  const got: unknown[] = [];
  const done = new Promise<void>((resolve) =>
    ws.on('message', (m) => {
      got.push(JSON.parse(String(m)));
      if (got.length === 2) resolve();
    }),
  );
  ws.send(JSON.stringify({ id: 1, method, params }));
  await done;
  ws.close();
  await once(ws, 'close');
  return got;
}

describe('several WebSocket connections to one path', () => {
  it('each get their own recorded session, in the order they connect: start, then resume', async () => {
    let threads = 0;
    const server = await startServer(() => {});
    const wss = new WebSocketServer({ server: server.server });
    wss.on('connection', (ws) =>
      ws.on('message', (m) => {
        const { id, method, params } = JSON.parse(String(m)) as { id: number; method: string; params: { thread?: string } };
        const thread = method === 'thread/start' ? `thread-${++threads}` : params.thread;
        ws.send(JSON.stringify({ id, result: { thread, resumed: method === 'thread/resume' } }));
        ws.send(JSON.stringify({ method: 'turn/completed', params: { thread } }));
      }),
    );
    cleanups.push(() => server.close());
    const proxy = await startRecordingProxy({ target: server.url });
    const url = `${proxy.url.replace('http', 'ws')}/rpc`;
    const live = [await converse(url, 'thread/start', {}), await converse(url, 'thread/resume', { thread: 'thread-1' })];
    const cassette = parseCassette(serializeCassette(await proxy.close()));
    expect(cassette.interactions.filter((i) => i.response?.websocket)).toHaveLength(2);

    const replay = await startReplayServer([{ name: 'two.yaml', cassette }]);
    cleanups.push(() => replay.close());
    const again = `${replay.url.replace('http', 'ws')}/rpc`;
    expect([await converse(again, 'thread/start', {}), await converse(again, 'thread/resume', { thread: 'thread-1' })]).toEqual(live);
    expect(replay.engine.misses.map((m) => m.message)).toEqual([]);
  });

  it('two clients at once each get the session their own first frame was recorded in, whatever order they connect in', async () => {
    const server = await startServer(() => {});
    const wss = new WebSocketServer({ server: server.server });
    wss.on('connection', (ws) =>
      ws.on('message', (m) => {
        const { id, params } = JSON.parse(String(m)) as { id: number; params: { name: string } };
        // Answers differ per client, and come after a pause: the two sessions overlap on the timeline.
        setTimeout(() => {
          ws.send(JSON.stringify({ id, result: { thread: `thread-of-${params.name}` } }));
          ws.send(JSON.stringify({ method: 'turn/completed', params: { name: params.name } }));
        }, 30);
      }),
    );
    cleanups.push(() => server.close());
    const proxy = await startRecordingProxy({ target: server.url });
    const url = `${proxy.url.replace('http', 'ws')}/rpc`;
    const live = await Promise.all([converse(url, 'thread/start', { name: 'alpha' }), converse(url, 'thread/start', { name: 'beta' })]);
    const cassette = parseCassette(serializeCassette(await proxy.close()));
    expect(cassette.interactions.filter((i) => i.response?.websocket)).toHaveLength(2);

    const replay = await startReplayServer([{ name: 'two-at-once.yaml', cassette }]);
    cleanups.push(() => replay.close());
    const again = `${replay.url.replace('http', 'ws')}/rpc`;
    // beta first this time, both at once.
    const [beta, alpha] = await Promise.all([
      converse(again, 'thread/start', { name: 'beta' }),
      converse(again, 'thread/start', { name: 'alpha' }),
    ]);
    expect([alpha, beta]).toEqual(live);
    expect(replay.engine.misses.map((m) => m.message)).toEqual([]);
    expect(replay.engine.unused()).toEqual([]);
  });
});
