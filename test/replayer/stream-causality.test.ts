import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type Cassette, parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { startReplayServer } from '../../src/replayer/index.js';
import { SseParser } from '../../src/sse/index.js';
import { readBody, sleep, startServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const CLIENTS = 50;

/** Reads a stream's events until it ends; `first` resolves on the first one. */
function collect(res: Response): { events: string[]; first: Promise<void>; done: Promise<void> } {
  const events: string[] = [];
  let onFirst: () => void = () => {};
  const first = new Promise<void>((r) => (onFirst = r));
  const done = (async () => {
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const parser = new SseParser();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const f of parser.push(value)) {
        if (f.kind !== 'event') continue;
        events.push(`${f.event} ${f.data}`);
        onFirst();
      }
    }
  })();
  return { events, first, done };
}

/**
 * An agent server: each session's stream says hello, and after that session's
 * post it streams a reply and ends; meanwhile the other sessions' clients are busy too.
 */
async function sessionsServer() {
  const streams = new Map<string, ServerResponse>();
  const server = await startServer(async (req, res) => {
    const [, , id, what] = (req.url ?? '').split('/');
    if (what === 'stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: hello\ndata: ${id}\n\n`);
      streams.set(id as string, res);
      return;
    }
    await readBody(req);
    res.writeHead(202, { 'content-type': 'application/json' });
    res.end('{"queued":true}');
    const stream = streams.get(id as string);
    for (let k = 0; k < 5; k++) {
      await sleep(2);
      stream?.write(`event: delta\ndata: ${id}:${k}\n\n`);
    }
    stream?.end('event: done\ndata: {}\n\n');
  });
  cleanups.push(() => server.close());
  return server;
}

async function replayOf(cassette: Cassette) {
  const replay = await startReplayServer([{ name: 'crowd.yaml', cassette: parseCassette(serializeCassette(cassette)) }], {
    mode: 'lenient',
  });
  cleanups.push(() => replay.close());
  return replay;
}

describe('causality that belongs to the stream (decision 0008)', () => {
  it(`a session stream recorded among ${CLIENTS} concurrent clients replays alone, still held until its own post`, async () => {
    const server = await sessionsServer();
    const proxy = await startRecordingProxy({ target: server.url });
    const ids = Array.from({ length: CLIENTS }, (_, n) => `sess${String(n).padStart(4, '0')}`);
    const live = await Promise.all(
      ids.map(async (id, n) => {
        const seen = collect(await fetch(`${proxy.url}/sessions/${id}/stream`));
        await seen.first;
        await sleep((n * 7) % 40);
        await fetch(`${proxy.url}/sessions/${id}/events`, { method: 'POST', body: '{"text":"hi"}' });
        await seen.done;
        return seen.events;
      }),
    );
    const cassette = await proxy.close();
    // Recorded among the others, most events were stamped after some other client's request.
    const pathOf = new Map(cassette.interactions.map((i) => [i.seq, i.request.path]));
    const foreign = cassette.interactions.flatMap((i) => {
      const id = i.request.path.split('/')[2] as string;
      return (i.response?.stream?.events ?? []).filter((e) => !pathOf.get(e.after)?.includes(id));
    });
    expect(foreign.length).toBeGreaterThan(CLIENTS);

    const replay = await replayOf(cassette);
    for (const n of [0, 17, CLIENTS - 1]) {
      const id = ids[n] as string;
      const alone = collect(await fetch(`${replay.url}/sessions/${id}/stream`));
      await alone.first;
      await sleep(150);
      // Nothing the post caused goes out before the post.
      expect(alone.events).toEqual([`hello ${id}`]);
      await fetch(`${replay.url}/sessions/${id}/events`, { method: 'POST', body: '{"text":"hi"}' });
      await alone.done;
      expect(alone.events).toEqual(live[n]);
    }
  }, 60_000);
});

describe("a stream's end waits for its cause too", () => {
  it('a stream the server ends because of a later request (an MCP session DELETE) stays open on replay until that request', async () => {
    let open: ServerResponse | undefined;
    const server = await startServer(async (req, res) => {
      await readBody(req);
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: message\ndata: {"method":"notifications/message"}\n\n');
        open = res;
        return;
      }
      // As an MCP server does: the session's standalone stream ends, then the DELETE is answered.
      open?.end();
      res.writeHead(200);
      res.end();
    });
    cleanups.push(() => server.close());
    const proxy = await startRecordingProxy({ target: server.url });
    const live = collect(await fetch(`${proxy.url}/mcp`));
    await live.first;
    await sleep(50);
    await fetch(`${proxy.url}/mcp`, { method: 'DELETE' });
    await live.done;
    const replay = await replayOf(await proxy.close());

    const replayed = collect(await fetch(`${replay.url}/mcp`));
    let ended = false;
    void replayed.done.then(() => (ended = true));
    await replayed.first;
    await sleep(300);
    // Its one event is out, and the stream is still open: a client would not reconnect and replay it twice.
    expect(ended).toBe(false);
    expect((await fetch(`${replay.url}/mcp`, { method: 'DELETE' })).status).toBe(200);
    await replayed.done;
    expect(replayed.events).toEqual(live.events);
  });
});
