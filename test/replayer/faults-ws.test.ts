import { setupServer } from 'msw/node';
import { WebSocket as UndiciWebSocket } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, WebSocket as WsClient } from 'ws';
import { type Cassette, parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { cassetteHandlers, type FaultRule, type ReplayEngine, startReplayServer } from '../../src/replayer/index.js';
import { startServer } from '../helpers/servers.js';

// Faults on WebSocket sessions through the server and MSW doors, in a file of its own: MSW patches the global
// WebSocket when its first server starts in a process, so the global must be in place before any MSW server runs.

const STALL_MS = 300;
const FRAMES = ['a', 'b', 'c'];

/** What a WebSocket client saw: the frames, and the close (or a stall: nothing more, the socket open). */
interface Conversation {
  frames: string[];
  closed?: number;
  stalled?: boolean;
  firstFrameMs?: number;
}

async function converse(WS: typeof UndiciWebSocket, url: string, stallMs = STALL_MS): Promise<Conversation> {
  const started = performance.now();
  const ws = new WS(url);
  const seen: Conversation = { frames: [] };
  return new Promise((resolve) => {
    let timer = setTimeout(() => {}, 0);
    const quiet = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        resolve({ ...seen, stalled: true });
        ws.close();
      }, stallMs);
    };
    ws.addEventListener('open', () => {
      ws.send('go');
      quiet();
    });
    ws.addEventListener('message', (e) => {
      seen.firstFrameMs ??= performance.now() - started;
      seen.frames.push(String(e.data));
      quiet();
    });
    ws.addEventListener('close', (e) => {
      clearTimeout(timer);
      resolve({ ...seen, closed: e.code });
    });
  });
}

let cassette: Cassette;
beforeAll(async () => {
  const server = await startServer(() => {});
  const wss = new WebSocketServer({ server: server.server });
  wss.on('connection', (ws) =>
    ws.on('message', () => {
      for (const f of FRAMES) ws.send(f);
      ws.close(1000, 'done');
    }),
  );
  const proxy = await startRecordingProxy({ target: server.url });
  const live = await converse(UndiciWebSocket, `${proxy.url.replace('http', 'ws')}/ws`);
  expect(live).toMatchObject({ frames: FRAMES, closed: 1000 });
  cassette = parseCassette(serializeCassette(await proxy.close()));
  await server.close();
});

type Door = (faults: FaultRule[]) => Promise<{ url: string; engine: ReplayEngine; close(): Promise<void> }>;
const globals = globalThis as { WebSocket?: unknown };
const DOORS: Record<string, Door> = {
  server: async (faults) => {
    const replay = await startReplayServer([{ name: 'ws.yaml', cassette }], { faults, config: false });
    return { url: `${replay.url.replace('http', 'ws')}/ws`, engine: replay.engine, close: () => replay.close() };
  },
  msw: async (faults) => {
    const original = globals.WebSocket;
    // Node 20 has no global WebSocket for MSW to patch; undici's is the same implementation.
    globals.WebSocket = UndiciWebSocket;
    const { handlers, engine } = cassetteHandlers([{ name: 'ws.yaml', cassette }], { faults, config: false });
    const msw = setupServer(...handlers);
    msw.listen({ onUnhandledRequest: 'error' });
    return {
      url: 'ws://api.test/ws',
      engine,
      close: async () => {
        msw.close();
        globals.WebSocket = original;
      },
    };
  },
};

const KINDS: [string, FaultRule, (c: Conversation) => void][] = [
  [
    'a close with a code after 1 frame',
    { kind: 'ws-close', code: 4001, frames: 1 },
    (c) => expect(c).toMatchObject({ frames: ['a'], closed: 4001 }),
  ],
  [
    'a drop with no close frame after 2 frames',
    { kind: 'reset-after', frames: 2 },
    (c) => expect(c).toMatchObject({ frames: ['a', 'b'], closed: 1006 }),
  ],
  ['a stall after 1 frame', { kind: 'stall', frames: 1 }, (c) => expect(c).toMatchObject({ frames: ['a'], stalled: true })],
];

describe.each(Object.keys(DOORS))('WebSocket faults through the %s door', (door) => {
  it.each(KINDS)('%s reaches the client, and is counted', async (_name, rule, check) => {
    const d = await (DOORS[door] as Door)([rule]);
    try {
      check(await converse(globals.WebSocket === undefined ? UndiciWebSocket : (globals.WebSocket as typeof UndiciWebSocket), d.url));
      expect(d.engine.injectedFaults).toEqual([expect.objectContaining({ kind: rule.kind, path: '/ws', call: 1 })]);
    } finally {
      await d.close();
    }
  });

  it('holds the first frame for a latency', async () => {
    const d = await (DOORS[door] as Door)([{ kind: 'latency', ms: 400 }]);
    try {
      const c = await converse(
        globals.WebSocket === undefined ? UndiciWebSocket : (globals.WebSocket as typeof UndiciWebSocket),
        d.url,
        5000,
      );
      expect(c).toMatchObject({ frames: FRAMES, closed: 1000 });
      expect(c.firstFrameMs).toBeGreaterThanOrEqual(380);
    } finally {
      await d.close();
    }
  });
});

describe('refusing a WebSocket upgrade (the server door: MSW cannot answer an upgrade with a status)', () => {
  it('answers the upgrade with the status, then with the recorded session on the retry', async () => {
    const d = await (DOORS.server as Door)([{ kind: 'status', status: 503, headers: { 'retry-after': '1' }, times: 1 }]);
    try {
      const refused = await new Promise<number>((resolve) => {
        const ws = new WsClient(d.url);
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => resolve(101));
      });
      expect(refused).toBe(503);
      expect(await converse(UndiciWebSocket, d.url)).toMatchObject({ frames: FRAMES, closed: 1000 });
    } finally {
      await d.close();
    }
  });

  it('drops the connection before the handshake for a reset', async () => {
    const d = await (DOORS.server as Door)([{ kind: 'reset' }]);
    try {
      const failed = await new Promise<string>((resolve) => {
        const ws = new WsClient(d.url);
        ws.on('error', (err) => resolve((err as NodeJS.ErrnoException).code ?? err.message));
        ws.on('open', () => resolve('open'));
      });
      expect(failed).not.toBe('open');
    } finally {
      await d.close();
    }
  });
});
