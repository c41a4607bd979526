import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import {
  type Cassette,
  type Interaction,
  loadCassette,
  makeRedactor,
  redactCassette,
  type SseItem,
  type WsFrame,
} from '../../src/cassette/index.js';
import { benchProxyUnderWrapper, runBench, startBench } from '../helpers/cli.js';
import { sleep, startServer } from '../helpers/servers.js';
import { cutInto, piecesOf, prose, spokenSecret } from '../helpers/spelt-secrets.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const KEY = 'sk-Ab3dE9fGh1JkLmN0pQr5StUvWx7Yz2Cd';
const delta = (text: string, at: number, event = 'delta'): SseItem => ({ at, after: 1, event, data: JSON.stringify({ delta: text }) });
const streamOf = (events: SseItem[], seq = 2): Interaction => ({
  seq,
  request: { method: 'GET', path: '/stream', headers: {} },
  response: { status: 200, headers: { 'content-type': 'text/event-stream' }, stream: { events, end: 'server-closed' } },
  timing: { start: 0 },
});
const withCredential = (authorization: string): Interaction => ({
  seq: 1,
  request: { method: 'POST', path: '/login', headers: { authorization } },
  response: { status: 204, headers: {} },
  timing: { start: 0 },
});
const cassetteOf = (interactions: Interaction[]): Cassette => ({
  version: 1,
  meta: { recorder: 'tapedeck test', recordedAt: '2026-01-01T00:00:00.000Z', target: 'http://127.0.0.1:1' },
  interactions,
});
const streamText = (i: Interaction | undefined, event = 'delta') =>
  (i?.response?.stream?.events ?? [])
    .filter((e) => e.event === event)
    .map((e) => JSON.parse(e.data ?? '{}').delta)
    .join('');

/** The secret spelt out in pieces after `before` and before `after`, other events interleaved. */
const spelt = fc
  .tuple(spokenSecret, prose, prose, fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), fc.array(fc.boolean(), { maxLength: 8 }))
  .map(([secret, before, after, cuts, others]) => {
    const texts = cutInto(`${before} ${secret.text} ${after}`, cuts);
    const events: SseItem[] = [];
    texts.forEach((t, k) => {
      events.push(delta(t, k * 2));
      if (others[k]) events.push(delta('tick', k * 2 + 1, 'status'));
    });
    return { secret, before, after, texts, events };
  });

/** A JSON-RPC server's session over WebSocket (codex app-server's `item/agentMessage/delta`), the client's frames between. */
const sessionOf = (texts: string[], others: boolean[]): Interaction => {
  const frames: WsFrame[] = [];
  texts.forEach((delta, k) => {
    frames.push({ at: k * 2, from: 'server', after: 1, json: { method: 'item/agentMessage/delta', params: { itemId: 'msg_1', delta } } });
    if (others[k]) frames.push({ at: k * 2 + 1, from: 'client', seq: 2 + k, after: 2 + k, json: { id: k, method: 'ping' } });
  });
  return {
    seq: 2,
    request: { method: 'GET', path: '/ws', headers: {} },
    response: { status: 101, headers: {}, websocket: { frames, end: 'server-closed' } },
    timing: { start: 0 },
  };
};
const sessionText = (i: Interaction | undefined) =>
  (i?.response?.websocket?.frames ?? []).map((f) => (f.json as { params?: { delta?: string } } | undefined)?.params?.delta ?? '').join('');

/** The text keeps its words around one placeholder, and no four characters of the secret's random part. */
function expectRedacted(text: string, { secret, before, after }: { secret: { random: string }; before: string; after: string }) {
  expect(text.startsWith(`${before} `)).toBe(true);
  expect(text.endsWith(` ${after}`)).toBe(true);
  expect(text).toMatch(/<redacted:[a-z0-9_.-]+>/);
  for (const piece of piecesOf(secret.random)) expect(text).not.toContain(piece);
}

/**
 * The exchange `made` redacted three ways, after an interaction that sends `header` as a credential (when given):
 * the whole cassette at once (a save), learnt interaction by interaction then scrubbed (the save-ahead and the
 * streaming save), and piece by piece with the credential first (the journal).
 */
function throughEveryRedaction(header: string | undefined, made: () => Interaction): Interaction[] {
  const first: Interaction[] = header ? [withCredential(header)] : [];
  const c = cassetteOf([...first, made()]);
  const pass = makeRedactor().twoPass();
  for (const i of c.interactions) pass.learn(i);
  const session = makeRedactor().session();
  if (first.length > 0) session.redact(cassetteOf(first));
  return [
    redactCassette(c).interactions.at(-1) as Interaction,
    pass.scrub(c.interactions.at(-1) as Interaction),
    session.redact(cassetteOf([made()])).interactions[0] as Interaction,
  ];
}

const SECRET = 'TQ7ZX2MPK9RWN4BV8HJD';

/**
 * A server that streams the credential of each request's Authorization header back four characters an event,
 * `pauseMs` apart (as a model streams tokens, across the recorder's windows); `spelt` resolves once it has.
 */
async function spellingServer({ pauseMs, keepOpen }: { pauseMs: number; keepOpen: boolean }) {
  let told!: () => void;
  const spelt = new Promise<void>((resolve) => {
    told = resolve;
  });
  const server = await startServer(async (req, res) => {
    const credential = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    const send = (delta: string) => res.write(`event: delta\ndata: ${JSON.stringify({ delta })}\n\n`);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    send('your key is ');
    for (let k = 0; k < credential.length; k += 4) {
      send(credential.slice(k, k + 4));
      await sleep(pauseMs);
    }
    send(', keep it safe');
    told();
    if (!keepOpen) res.end();
  });
  cleanups.push(() => server.close());
  return { server, spelt };
}

/**
 * `bench proxy` recording `target`, a client started by `connect` with the proxy's URL, SIGKILLed once the server
 * has `spelt` the credential out and two journal windows more have passed. The journal it leaves must hold no
 * piece of the credential; `bench recover` then saves it, and the recovered cassette is returned.
 */
async function killedOnceSpelt(target: string, spelt: Promise<void>, connect: (url: string) => void): Promise<Cassette> {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-killed-'));
  const file = join(dir, 'killed.yaml');
  const bench = await startBench(['proxy', '--target', target, '--port', '0', '--cassette', file]);
  cleanups.push(async () => {
    if (bench.child.exitCode === null) bench.child.kill('SIGKILL');
    await bench.exit();
  });
  connect(bench.url);
  await spelt;
  await sleep(150);
  bench.child.kill('SIGKILL');
  await bench.exit();
  const journal = await readFile(`${file}.journal`, 'utf8');
  for (let k = 0; k + 4 <= SECRET.length; k += 4) expect(journal).not.toContain(SECRET.slice(k, k + 4));
  expect(journal).toContain('keep it safe');
  expect((await runBench(['recover', file])).code).toBe(0);
  return loadCassette(file);
}

describe('secrets a model streams in pieces', () => {
  it('are searched for again in a stream that grew after it was learnt', () => {
    // A live recording's stream grows in place: learnt with one piece of the key, scrubbed once the rest has come.
    const events = [delta('here is ', 1), delta(`the key ${KEY.slice(0, 12)}`, 2)];
    const live = streamOf(events);
    const pass = makeRedactor().twoPass();
    pass.learn(live);
    events.push(delta(`${KEY.slice(12)} done`, 3));
    expect(streamText(pass.scrub(live))).toBe('here is the key <redacted:api-key> done');
  });

  it('a secret spelt out in pieces is cut from every piece: whole cassette, two passes, session', () => {
    fc.assert(
      fc.property(spelt, (example) => {
        for (const cleaned of throughEveryRedaction(example.secret.header, () => streamOf(example.events))) {
          expectRedacted(streamText(cleaned), example);
          // Nothing else changed: the other events are as they were.
          expect(streamText(cleaned, 'status')).toBe(streamText(streamOf(example.events), 'status'));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a secret spelt out across WebSocket frames is cut from every frame: whole cassette, two passes, session', () => {
    fc.assert(
      fc.property(spelt, fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), (example, others) => {
        for (const cleaned of throughEveryRedaction(example.secret.header, () => sessionOf(example.texts, others)))
          expectRedacted(sessionText(cleaned), example);
      }),
      { numRuns: 300 },
    );
  });

  it('bench proxy under a wrapper saves no piece of a credential a curl client sent and the server streamed back in pieces', async () => {
    const { server } = await spellingServer({ pauseMs: 15, keepOpen: false });
    const { file, url, bench } = await benchProxyUnderWrapper(server.url, 'spelt.yaml', cleanups);
    const { stdout } = await promisify(execFile)('curl', ['-sSN', '--compressed', '-H', `Authorization: Bearer ${SECRET}`, `${url}/chat`]);
    expect(stdout).toContain(SECRET.slice(0, 4));
    process.kill(bench.wrapperPid, 'SIGKILL');
    await bench.ended;
    const text = await readFile(file, 'utf8');
    for (let k = 0; k + 4 <= SECRET.length; k += 4) expect(text).not.toContain(SECRET.slice(k, k + 4));
    const cassette = await loadCassette(file);
    expect(streamText(cassette.interactions[0])).toBe('your key is <redacted:authorization>, keep it safe');
  }, 60_000);

  it('bench proxy killed mid-stream leaves a journal with no piece of the credential, and bench recover saves it as one placeholder', async () => {
    // 30 ms apart: every piece in a journal window of its own; the stream stays open, as the recorder dies first.
    const { server, spelt } = await spellingServer({ pauseMs: 30, keepOpen: true });
    const cassette = await killedOnceSpelt(server.url, spelt, (url) => {
      const client = spawn('curl', ['-sSN', '-H', `Authorization: Bearer ${SECRET}`, `${url}/chat`], { stdio: 'ignore' });
      cleanups.push(async () => {
        client.kill('SIGKILL');
      });
    });
    expect(streamText(cassette.interactions[0])).toBe('your key is <redacted:authorization>, keep it safe');
    expect(cassette.interactions[0]?.response?.stream?.end).toBe('broken');
  }, 60_000);

  it('bench proxy killed mid-session leaves a journal with no piece of a credential a WebSocket server spelt back', async () => {
    // A JSON-RPC server that answers over frames, four characters a delta, 30 ms apart; the session stays open.
    let told!: () => void;
    const spelt = new Promise<void>((resolve) => {
      told = resolve;
    });
    const server = await startServer(() => {});
    const wss = new WebSocketServer({ server: server.server });
    wss.on('connection', async (ws, req) => {
      const credential = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      const say = (delta: string) => ws.send(JSON.stringify({ method: 'item/agentMessage/delta', params: { itemId: 'msg_1', delta } }));
      say('your key is ');
      for (let k = 0; k < credential.length; k += 4) {
        say(credential.slice(k, k + 4));
        await sleep(30);
      }
      say(', keep it safe');
      told();
    });
    cleanups.push(async () => {
      for (const c of wss.clients) c.terminate();
      wss.close();
      await server.close();
    });
    const cassette = await killedOnceSpelt(server.url, spelt, (url) => {
      const client = new WebSocket(`${url.replace('http', 'ws')}/rpc`, { headers: { authorization: `Bearer ${SECRET}` } });
      client.on('error', () => {});
      cleanups.push(async () => {
        client.terminate();
      });
    });
    expect(sessionText(cassette.interactions[0])).toBe('your key is <redacted:authorization>, keep it safe');
  }, 60_000);
});
