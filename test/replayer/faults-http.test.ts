import { setupServer } from 'msw/node';
import { fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cassette, parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import {
  cassetteDispatcher,
  cassetteHandlers,
  type FaultRule,
  type NamedCassette,
  type ReplayEngine,
  startReplayServer,
} from '../../src/replayer/index.js';
import { readBody, startServer } from '../helpers/servers.js';

/**
 * Faults on demand through every door: each kind, on each transport it applies to, is seen by a real client
 * (fetch, undici) as it would see the fault from a real server. The rule chooses by the same selectors whatever
 * the door; the same seed breaks the same calls.
 */

const TEXT = 'abcdefghijklmnopqrstuvwxyz';
const EVENTS = [1, 2, 3, 4].map((n) => `id: ${n}\ndata: {"n":${n}}\n\n`);
const STALL_MS = 300;

type Fetcher = (path: string, init?: RequestInit) => Promise<Response>;

/** What a client saw: the status and headers, the body it read, and how the read ended. */
interface Seen {
  status?: number;
  retryAfter?: string | null;
  body: string;
  ended: 'complete' | 'stalled' | 'failed before headers' | 'failed';
  cause?: string | undefined;
  ms: number;
}

async function observe(fetcher: Fetcher, path: string, init?: RequestInit): Promise<Seen> {
  const started = performance.now();
  const controller = new AbortController();
  let res: Response;
  try {
    res = await fetcher(path, { ...init, signal: controller.signal });
  } catch {
    return { body: '', ended: 'failed before headers', ms: performance.now() - started };
  }
  const ms = performance.now() - started;
  const seen: Seen = { status: res.status, retryAfter: res.headers.get('retry-after'), body: '', ended: 'complete', ms };
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<'stalled'>((r) => {
      timer = setTimeout(() => r('stalled'), STALL_MS);
    });
    try {
      const next = await Promise.race([reader.read(), stalled]);
      if (next === 'stalled') {
        controller.abort();
        return { ...seen, ended: 'stalled' };
      }
      if (next.done) return seen;
      seen.body += decoder.decode(next.value, { stream: true });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause;
      return { ...seen, ended: 'failed', cause: cause?.code };
    } finally {
      clearTimeout(timer);
    }
  }
}

let cassette: Cassette;
let recorded: Record<string, Seen>;

beforeAll(async () => {
  const server = await startServer(async (req, res) => {
    await readBody(req);
    if (req.url === '/items') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"items":[1,2,3]}');
    } else if (req.url === '/text') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(TEXT);
    } else if (req.url === '/orders') {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end('{"id":"o-1"}');
    } else {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const e of EVENTS) res.write(e);
      res.end();
    }
  });
  const proxy = await startRecordingProxy({ target: server.url });
  const live: Fetcher = (p, i) => fetch(`${proxy.url}${p}`, i);
  recorded = {
    items: await observe(live, '/items'),
    text: await observe(live, '/text'),
    events: await observe(live, '/events'),
    orders: await observe(live, '/orders', { method: 'POST', body: '{"item":"tea"}' }),
  };
  for (let i = 0; i < 39; i++) await observe(live, '/items');
  cassette = parseCassette(serializeCassette(await proxy.close()));
  await server.close();
});

type Door = { fetcher: Fetcher; engine: ReplayEngine; close(): Promise<void> };
const DOORS: Record<string, (set: NamedCassette[], faults: FaultRule[], faultSeed?: number) => Promise<Door>> = {
  server: async (set, faults, faultSeed) => {
    const replay = await startReplayServer(set, { faults, faultSeed, config: false });
    return { fetcher: (p, i) => fetch(`${replay.url}${p}`, i), engine: replay.engine, close: () => replay.close() };
  },
  undici: async (set, faults, faultSeed) => {
    const dispatcher = cassetteDispatcher(set, { faults, faultSeed, config: false });
    return {
      fetcher: async (p, i) => (await undiciFetch(`http://api.test${p}`, { ...(i as object), dispatcher })) as unknown as Response,
      engine: dispatcher.engine,
      close: async () => {},
    };
  },
  msw: async (set, faults, faultSeed) => {
    const { handlers, engine } = cassetteHandlers(set, { faults, faultSeed, config: false });
    const msw = setupServer(...handlers);
    msw.listen({ onUnhandledRequest: 'error' });
    return { fetcher: (p, i) => fetch(`http://api.test${p}`, i), engine, close: async () => msw.close() };
  },
};

async function withDoor<T>(door: string, faults: FaultRule[], use: (d: Door) => Promise<T>, seed?: number): Promise<T> {
  const open = DOORS[door] as (typeof DOORS)[string];
  const d = await open([{ name: 'faults.yaml', cassette }], faults, seed);
  try {
    return await use(d);
  } finally {
    await d.close();
  }
}

/** Each kind, the path it breaks, and what the client must see. */
const KINDS: [string, FaultRule, string, (seen: Seen) => void][] = [
  [
    'an error status with its Retry-After',
    { kind: 'status', status: 503, headers: { 'Retry-After': '1' }, path: '/items' },
    '/items',
    (s) => expect(s).toMatchObject({ status: 503, retryAfter: '1', ended: 'complete', body: expect.stringContaining('tapedeck_fault') }),
  ],
  ['a reset before the headers', { kind: 'reset', path: '/items' }, '/items', (s) => expect(s.ended).toBe('failed before headers')],
  [
    'a reset after 2 SSE events',
    { kind: 'reset-after', events: 2, path: '/events' },
    '/events',
    (s) => expect(s).toMatchObject({ status: 200, body: EVENTS.slice(0, 2).join(''), ended: 'failed' }),
  ],
  [
    'a reset after 5 bytes of a body',
    { kind: 'reset-after', bytes: 5, path: '/text' },
    '/text',
    (s) => expect(s).toMatchObject({ status: 200, body: 'abcde', ended: 'failed' }),
  ],
  [
    'a stall after 1 SSE event',
    { kind: 'stall', events: 1, path: '/events' },
    '/events',
    (s) => expect(s).toMatchObject({ body: EVENTS[0], ended: 'stalled' }),
  ],
  [
    'a stall after 3 bytes',
    { kind: 'stall', bytes: 3, path: '/text' },
    '/text',
    (s) => expect(s).toMatchObject({ body: 'abc', ended: 'stalled' }),
  ],
  [
    'a malformed chunk after 1 SSE event',
    { kind: 'malformed', events: 1, path: '/events' },
    '/events',
    (s) => expect(s).toMatchObject({ body: EVENTS[0], ended: 'failed', cause: 'HPE_INVALID_CHUNK_SIZE' }),
  ],
  [
    'a malformed chunk after 4 bytes',
    { kind: 'malformed', bytes: 4, path: '/text' },
    '/text',
    (s) => expect(s).toMatchObject({ body: 'abcd', ended: 'failed', cause: 'HPE_INVALID_CHUNK_SIZE' }),
  ],
  [
    'a duplicated SSE event',
    { kind: 'duplicate-event', event: 2, path: '/events' },
    '/events',
    (s) => expect(s).toMatchObject({ body: [EVENTS[0], EVENTS[1], EVENTS[1], EVENTS[2], EVENTS[3]].join(''), ended: 'complete' }),
  ],
  [
    'a dropped SSE event',
    { kind: 'drop-event', event: 2, path: '/events' },
    '/events',
    (s) => expect(s).toMatchObject({ body: [EVENTS[0], EVENTS[2], EVENTS[3]].join(''), ended: 'complete' }),
  ],
];

describe.each(Object.keys(DOORS))('faults through the %s door', (door) => {
  it.each(KINDS)('%s reaches the client, logged and counted', async (_name, rule, path, check) => {
    await withDoor(door, [rule], async ({ fetcher, engine }) => {
      check(await observe(fetcher, path));
      expect(engine.injectedFaults).toEqual([
        expect.objectContaining({ rule: 0, kind: rule.kind, path, call: 1, cassette: 'faults.yaml' }),
      ]);
      // The rule breaks what it selects and nothing else: the other paths answer as recorded.
      const other = path === '/items' ? '/text' : '/items';
      expect(await observe(fetcher, other)).toMatchObject({ body: recorded[other.slice(1)]?.body, ended: 'complete' });
    });
  });

  it('holds the headers for a latency, and only on the call chosen', async () => {
    await withDoor(door, [{ kind: 'latency', ms: 400, path: '/items', call: 2 }], async ({ fetcher, engine }) => {
      const first = await observe(fetcher, '/items');
      const second = await observe(fetcher, '/items');
      expect(second).toMatchObject({ status: 200, body: recorded.items?.body, ended: 'complete' });
      expect(second.ms).toBeGreaterThanOrEqual(380);
      expect(second.ms).toBeGreaterThan(first.ms);
      expect(engine.faultCount).toBe(1);
    });
  });

  it('leaves a refused request its recording: the retry after a 503 gets the recorded answer', async () => {
    await withDoor(door, [{ kind: 'status', status: 503, method: 'POST', times: 1 }], async ({ fetcher }) => {
      const post = { method: 'POST', body: '{"item":"tea"}' };
      expect((await observe(fetcher, '/orders', post)).status).toBe(503);
      expect(await observe(fetcher, '/orders', post)).toMatchObject({ status: 201, body: recorded.orders?.body });
    });
  });
});

describe('choosing the calls a fault breaks', () => {
  const broken = (engine: ReplayEngine) => engine.injectedFaults.map((f) => f.call);
  const forty = async (fetcher: Fetcher) => {
    for (let i = 0; i < 40; i++) await observe(fetcher, '/items');
  };

  it('breaks the same calls for the same seed, and other calls for another', async () => {
    const rule: FaultRule = { kind: 'status', status: 500, path: '/it*', probability: 0.5 };
    const runs: number[][] = [];
    for (const seed of [7, 7, 8])
      runs.push(await withDoor('undici', [rule], async ({ fetcher, engine }) => (await forty(fetcher), broken(engine)), seed));
    expect(runs[0]).toEqual(runs[1]);
    expect(runs[0]).not.toEqual(runs[2]);
    expect(runs[0]?.length).toBeGreaterThan(5);
    expect(runs[0]?.length).toBeLessThan(35);
  });

  it('counts calls per rule, caps them with times, and matches method, path glob and recording', async () => {
    const rules: FaultRule[] = [
      { kind: 'status', status: 502, method: 'GET', path: '/**', call: 3 },
      { kind: 'status', status: 504, cassette: 'faults.yaml', seq: 1, times: 2 },
      { kind: 'status', status: 500, method: 'DELETE' },
    ];
    await withDoor('undici', rules, async ({ fetcher, engine }) => {
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await observe(fetcher, '/items')).status);
      // Rule 1 sees calls 1-5 of /items and breaks the third; rule 2 breaks the first two of seq 1 (the first /items it reaches).
      expect(statuses).toEqual([504, 504, 502, 200, 200]);
      expect(engine.faultsByRule).toEqual([1, 2, 0]);
    });
  });

  it('refuses a rule it cannot apply, in one line naming the field and the kinds', () => {
    expect(() =>
      cassetteDispatcher([{ name: 'c', cassette }], { faults: [{ kind: 'stauts', status: 503 } as never], config: false }),
    ).toThrow(
      /faults\[0\]\.kind: .*; the kinds are status, reset, reset-after, stall, latency, malformed, ws-close, duplicate-event, drop-event/,
    );
  });
});

afterAll(() => {});
