import { setupServer } from 'msw/node';
import { WebSocket as UndiciWebSocket } from 'undici';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { cassetteDispatcher, cassetteHandlers, startReplayServer } from '../../src/replayer/index.js';
import { sleep, startServer } from '../helpers/servers.js';

// The door conformance suite's WebSocket half, in a file of its own: MSW patches the global WebSocket
// when its first server starts in a process, so the global must be in place before any MSW server runs.
describe('WebSocket sessions through the server, undici and MSW doors', () => {
  it('give the same frames in the same order and the recorded close code and reason', async () => {
    const server = await startServer(() => {});
    const wss = new WebSocketServer({ server: server.server });
    wss.on('connection', (ws) =>
      ws.on('message', async (m) => {
        ws.send(JSON.stringify({ echo: JSON.parse(String(m)) }));
        await sleep(20);
        ws.send('plain text frame');
        ws.close(4001, 'done for today');
      }),
    );
    const proxy = await startRecordingProxy({ target: server.url });
    const converse = async (WS: typeof UndiciWebSocket, url: string, init?: ConstructorParameters<typeof UndiciWebSocket>[1]) => {
      const ws = new WS(url, init);
      const frames: string[] = [];
      ws.addEventListener('message', (e) => frames.push(String(e.data)));
      await new Promise((r) => ws.addEventListener('open', r, { once: true }));
      ws.send('{"hello":1}');
      const closed = await new Promise<{ code: number; reason: string }>((r) =>
        ws.addEventListener('close', (e) => r({ code: e.code, reason: e.reason }), { once: true }),
      );
      return { frames, closed };
    };
    const live = await converse(UndiciWebSocket, `${proxy.url.replace('http', 'ws')}/ws`);
    const recordedWs = parseCassette(serializeCassette(await proxy.close()));
    await server.close();
    expect(live.closed).toEqual({ code: 4001, reason: 'done for today' });

    const replay = await startReplayServer([{ name: 'ws.yaml', cassette: recordedWs }]);
    try {
      expect(await converse(UndiciWebSocket, `${replay.url.replace('http', 'ws')}/ws`), 'server door').toEqual(live);
    } finally {
      await replay.close();
    }
    // undici's WebSocket given the undici door as its dispatcher, to the recorded server's own (closed) address.
    const door = cassetteDispatcher([{ name: 'ws.yaml', cassette: recordedWs }]);
    try {
      expect(await converse(UndiciWebSocket, `${server.url.replace('http', 'ws')}/ws`, { dispatcher: door }), 'undici door').toEqual(live);
      expect(door.engine.misses).toEqual([]);
    } finally {
      await door.close();
    }
    const globals = globalThis as { WebSocket?: unknown };
    const original = globals.WebSocket;
    // Node 20 has no global WebSocket for MSW to patch; undici's is the same implementation.
    globals.WebSocket = UndiciWebSocket;
    const msw = setupServer(...cassetteHandlers([{ name: 'ws.yaml', cassette: recordedWs }]).handlers);
    msw.listen({ onUnhandledRequest: 'error' });
    try {
      expect(await converse(globals.WebSocket as typeof UndiciWebSocket, 'ws://api.test/ws'), 'msw door').toEqual(live);
    } finally {
      msw.close();
      globals.WebSocket = original;
    }
  });
});
