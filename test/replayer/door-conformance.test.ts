import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setupServer } from 'msw/node';
import { fetch as undiciFetch } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Cassette, parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import {
  cassetteDispatcher,
  cassetteHandlers,
  type NamedCassette,
  type ReplayEngine,
  type ReplayOptions,
  startReplayServer,
} from '../../src/replayer/index.js';
import { jsonGet } from '../helpers/cassettes.js';
import { readBody, sleep, startServer } from '../helpers/servers.js';

/**
 * One set of recordings through all three doors (the MSW handlers, the undici
 * dispatcher, the replay server), in instant and realtime timing: the same
 * bytes, the same order, the same breaks and the same misses. A door that
 * differs from the others fails here, whichever it is.
 */

const PAUSE_MS = 120;
const SSE = ['id: 7\r\nevent: tick\r\ndata: {"n":1}\r\n\r\n', ': ping\n\n', 'event: tick\ndata: {"n":2}\n\n'];

/** What a client saw of one exchange, in a form every door can be compared in. */
type Seen = { status: number; type: string | null; body: string } | { failed: true; partial: string };

type Fetcher = (path: string, init?: RequestInit) => Promise<Response>;

/** The client's script: a JSON read, a slow write, an SSE stream, a stream cut by the server, then a miss. */
async function script(fetcher: Fetcher): Promise<{ seen: Seen[]; ms: number }> {
  const seen: Seen[] = [];
  const read = async (path: string, init?: RequestInit) => {
    let partial = '';
    try {
      const res = await fetcher(path, init);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        partial += new TextDecoder().decode(value);
      }
      seen.push({ status: res.status, type: res.headers.get('content-type'), body: partial });
    } catch {
      seen.push({ failed: true, partial });
    }
  };
  const started = performance.now();
  await read('/items?limit=2');
  await read('/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"item":"tea"}' });
  await read('/stream');
  await read('/cut');
  await read('/nowhere');
  return { seen, ms: performance.now() - started };
}

let cassette: Cassette;
let recordedMs: number;
let recorded: Seen[];

beforeAll(async () => {
  const server = await startServer(async (req, res) => {
    await readBody(req);
    if (req.url?.startsWith('/items')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data":[1,2]}');
    } else if (req.url === '/orders') {
      await sleep(PAUSE_MS);
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"id":"o-1"}');
    } else if (req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const chunk of SSE) {
        res.write(chunk);
        await sleep(PAUSE_MS);
      }
      res.end();
    } else if (req.url === '/cut') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"half":true}\n\n');
      await sleep(PAUSE_MS);
      res.destroy();
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
    }
  });
  const proxy = await startRecordingProxy({ target: server.url });
  const live = await script((path, init) => fetch(`${proxy.url}${path}`, init));
  recordedMs = live.ms;
  // The miss only exists in replay: drop its recording so every door must report it.
  cassette = parseCassette(serializeCassette(await proxy.close()));
  cassette = { ...cassette, interactions: cassette.interactions.filter((i) => i.request.path !== '/nowhere') };
  recorded = live.seen.slice(0, 4);
  await server.close();
});

const DOORS: Record<
  string,
  (
    set: NamedCassette[],
    timing: string,
    options?: ReplayOptions,
  ) => Promise<{ fetcher: Fetcher; engine: ReplayEngine; close(): Promise<void> }>
> = {
  server: async (set, timing, options) => {
    const replay = await startReplayServer(set, { ...options, timing });
    return { fetcher: (p, i) => fetch(`${replay.url}${p}`, i), engine: replay.engine, close: () => replay.close() };
  },
  undici: async (set, timing, options) => {
    const dispatcher = cassetteDispatcher(set, { ...options, timing });
    return {
      fetcher: async (p, i) => (await undiciFetch(`http://api.test${p}`, { ...(i as object), dispatcher })) as unknown as Response,
      engine: dispatcher.engine,
      close: async () => {},
    };
  },
  msw: async (set, timing, options) => {
    const { handlers, engine } = cassetteHandlers(set, { ...options, timing });
    const msw = setupServer(...handlers);
    msw.listen({ onUnhandledRequest: 'error' });
    return { fetcher: (p, i) => fetch(`http://api.test${p}`, i), engine, close: async () => msw.close() };
  },
};

describe.each(['instant', 'realtime'])('every door, %s timing', (timing) => {
  it.each(Object.keys(DOORS))('%s gives back the recorded bytes, order and breaks, and reports the miss', async (door) => {
    const open = DOORS[door] as (typeof DOORS)[string];
    const replay = await open([{ name: 'doors.yaml', cassette }], timing);
    try {
      const run = await script(replay.fetcher);
      // Byte for byte: status, content type, body; the cut stream fails after the same first event.
      expect(run.seen.slice(0, 4)).toEqual(recorded);
      expect(run.seen[3]).toMatchObject({ failed: true, partial: 'data: {"half":true}\n\n' });
      // A request nothing matches is reported, and the client does not get a made-up answer.
      expect(replay.engine.misses).toHaveLength(1);
      const miss = run.seen[4] as Seen;
      expect('failed' in miss ? 'failed' : miss.status).toBeOneOf(['failed', 400]);
      if (timing === 'realtime') {
        // Realtime replays the server's own time on each exchange, not the client's between them (which a loaded
        // machine stretches in the live run): at least what the recording says the server took.
        const serverMs = cassette.interactions.reduce((sum, i) => sum + ((i.timing.end ?? i.timing.start) - i.timing.start), 0);
        expect(serverMs).toBeGreaterThan(4 * PAUSE_MS);
        expect(run.ms).toBeGreaterThan(0.95 * serverMs);
        expect(run.ms).toBeLessThan(2 * recordedMs + 500);
      } else expect(run.ms).toBeLessThan(0.5 * recordedMs);
    } finally {
      await replay.close();
    }
  });
});

describe('one tapedeck.config.json', () => {
  it('gives the same match through every door, and the same advice naming the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-doors-config-'));
    const config = join(dir, 'tapedeck.config.json');
    await writeFile(config, JSON.stringify({ match: { ignoreQuery: ['nonce'] } }));
    const set = [{ name: 'echo.yaml', cassette: jsonGet('/echo?nonce=1&q=a', { echoed: 'a' }) }];
    try {
      for (const [door, open] of Object.entries(DOORS)) {
        const replay = await open(set, 'instant', { config });
        try {
          const hit = await replay.fetcher('/echo?nonce=77&q=a');
          expect(await hit.json(), door).toEqual({ echoed: 'a' });
          await replay.fetcher('/echo?nonce=77&q=b').catch(() => undefined);
          expect(replay.engine.misses[0]?.message, door).toContain('query.q');
          expect(replay.engine.misses[0]?.message, door).toContain(
            `Record again, or ignore that parameter: "ignoreQuery": ["q"] (the "match" section of`,
          );
        } finally {
          await replay.close();
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
