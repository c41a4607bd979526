import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
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

  /**
   * A client in the way of `codex exec --remote`: it opens with the same
   * `initialize` as every other, is handed a thread id it echoes back, and
   * only then says what it wants.
   */
  async function alike(url: string, text: string, pauseMs: number): Promise<{ thread: string; echo: string }> {
    await sleep(pauseMs);
    const ws = new WebSocket(url);
    await once(ws, 'open');
    const inbox: Record<string, unknown>[] = [];
    const waiters: (() => void)[] = [];
    let closed = '';
    ws.on('message', (m) => {
      inbox.push(JSON.parse(String(m)));
      for (const w of waiters.splice(0)) w();
    });
    ws.on('close', (code, reason) => {
      closed = `closed ${code} ${reason}`;
      for (const w of waiters.splice(0)) w();
    });
    const next = async (match: (m: Record<string, unknown>) => boolean) => {
      for (;;) {
        const hit = inbox.find(match);
        if (hit) return hit;
        if (closed) throw new Error(`${text}: ${closed} after ${JSON.stringify(inbox)}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    };
    ws.send(JSON.stringify({ id: 'initialize', method: 'initialize', params: { clientInfo: { name: 'exec' } } }));
    await next((m) => m.id === 'initialize');
    ws.send(JSON.stringify({ id: 1, method: 'thread/start', params: {} }));
    const { thread } = (await next((m) => m.id === 1)).result as { thread: string };
    await sleep(pauseMs);
    ws.send(JSON.stringify({ id: 2, method: 'turn/start', params: { threadId: thread, text } }));
    const done = await next((m) => m.method === 'turn/completed');
    ws.close();
    await once(ws, 'close');
    return { thread, echo: (done.params as { echo: string }).echo };
  }

  it('clients that open alike and echo the ids they were handed each end in their own session, in any order and at once', async () => {
    const server = await startServer(() => {});
    const wss = new WebSocketServer({ server: server.server });
    const threads = new Map<string, string>();
    wss.on('connection', (ws) =>
      ws.on('message', (m) => {
        const { id, method, params } = JSON.parse(String(m)) as {
          id: unknown;
          method: string;
          params: { threadId?: string; text?: string };
        };
        if (method === 'initialize') ws.send(JSON.stringify({ id, result: { server: 'alike' } }));
        if (method === 'thread/start') {
          const thread = randomUUID();
          threads.set(thread, '');
          // Every connection hears of every new thread, as codex app-server tells them all.
          for (const client of wss.clients) client.send(JSON.stringify({ method: 'thread/started', params: { thread } }));
          ws.send(JSON.stringify({ id, result: { thread } }));
        }
        if (method === 'turn/start') {
          ws.send(JSON.stringify({ id, result: {} }));
          const known = threads.has(params.threadId as string);
          ws.send(
            JSON.stringify({
              method: 'turn/completed',
              params: { threadId: params.threadId, echo: known ? params.text : 'unknown thread' },
            }),
          );
        }
      }),
    );
    cleanups.push(() => server.close());
    const proxy = await startRecordingProxy({ target: server.url });
    const url = `${proxy.url.replace('http', 'ws')}/rpc`;
    const texts = ['alpha', 'beta', 'gamma'];
    const live = await Promise.all(texts.map((t) => alike(url, t, 0)));
    expect(live.map((r) => r.echo)).toEqual(texts);
    const cassette = parseCassette(serializeCassette(await proxy.close()));

    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 3, maxLength: 3 }), async (pauses) => {
        const replay = await startReplayServer([{ name: 'alike.yaml', cassette }]);
        try {
          const again = `${replay.url.replace('http', 'ws')}/rpc`;
          const got = await Promise.all(texts.map((t, i) => alike(again, t, pauses[i] as number)));
          // Each client gets its own answer, and the threads handed out are the recorded ones, one each.
          expect(got.map((r) => r.echo)).toEqual(texts);
          expect(got.map((r) => r.thread).sort()).toEqual(live.map((r) => r.thread).sort());
          expect(replay.engine.misses.map((m) => m.message)).toEqual([]);
        } finally {
          await replay.close();
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe('a turn started over a connection of its own', () => {
  it("is heard on the thread's connection only once the other connection has started it, as omnigent's codex transport expects", async () => {
    // A codex-like server: the thread's connection hears of every turn on it; each turn is started over a fresh connection.
    const server = await startServer(() => {});
    const wss = new WebSocketServer({ server: server.server });
    const holders = new Map<string, WebSocket>();
    let threads = 0;
    wss.on('connection', (ws) =>
      ws.on('message', (m) => {
        const { id, method, params } = JSON.parse(String(m)) as {
          id: number;
          method: string;
          params: { threadId?: string; text?: string };
        };
        if (method === 'thread/start') {
          const threadId = `thr-${++threads}-${randomUUID()}`;
          holders.set(threadId, ws);
          ws.send(JSON.stringify({ id, result: { thread: { id: threadId } } }));
          return;
        }
        const turnId = `turn-${params.text}-7`;
        ws.send(JSON.stringify({ id, result: { turn: { id: turnId } } }));
        const holder = holders.get(params.threadId as string);
        for (const method of ['turn/started', 'item/completed', 'turn/completed'])
          holder?.send(JSON.stringify({ method, params: { threadId: params.threadId, turnId } }));
      }),
    );
    cleanups.push(() => server.close());

    /** The flow: a holding connection starts a thread, two turns go over connections of their own; what the holder heard when. */
    async function flow(base: string) {
      const url = `${base.replace('http', 'ws')}/rpc`;
      const holder = new WebSocket(url);
      await once(holder, 'open');
      const heard: string[] = [];
      holder.on('message', (m) => {
        const msg = JSON.parse(String(m)) as { method?: string; params?: { turnId?: string } };
        if (msg.method) heard.push(`${msg.method} ${msg.params?.turnId}`);
      });
      const started = once(holder, 'message');
      holder.send(JSON.stringify({ id: 1, method: 'thread/start', params: {} }));
      const threadId = (JSON.parse(String((await started)[0])) as { result: { thread: { id: string } } }).result.thread.id;
      const steps: string[][] = [];
      for (const text of ['one', 'two']) {
        await sleep(30);
        steps.push([...heard]);
        // As omnigent's executor: a fresh connection, the call, its answer, close.
        const inject = new WebSocket(url);
        await once(inject, 'open');
        const answered = once(inject, 'message');
        inject.send(JSON.stringify({ id: 1, method: 'turn/start', params: { threadId, text } }));
        await answered;
        inject.close();
        await once(inject, 'close');
        while (!heard.includes(`turn/completed turn-${text}-7`)) await sleep(5);
      }
      holder.close();
      await once(holder, 'close');
      return { steps, heard };
    }

    const proxy = await startRecordingProxy({ target: server.url });
    const live = await flow(proxy.url);
    // Before each turn is started, the holder has heard nothing of it.
    expect(live.steps).toEqual([[], ['turn/started turn-one-7', 'item/completed turn-one-7', 'turn/completed turn-one-7']]);
    const replay = await startReplayServer([{ name: 'turns.yaml', cassette: parseCassette(serializeCassette(await proxy.close())) }]);
    cleanups.push(() => replay.close());
    expect(await flow(replay.url)).toEqual(live);
    expect(replay.engine.misses).toEqual([]);
  });
});
