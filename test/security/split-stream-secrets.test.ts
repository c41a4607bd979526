import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { type Cassette, type Interaction, loadCassette, makeRedactor, redactCassette, type SseItem } from '../../src/cassette/index.js';
import { benchProxyUnderWrapper } from '../helpers/cli.js';
import { sleep, startServer } from '../helpers/servers.js';

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
const withCredential = (token: string): Interaction => ({
  seq: 1,
  request: { method: 'POST', path: '/login', headers: { authorization: `Bearer ${token}` } },
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

// A credential no rule knows by shape: only its place (an Authorization header) makes it a secret.
const ALNUM = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const token = fc.array(fc.constantFrom(...ALNUM), { minLength: 16, maxLength: 28 }).map((a) => `T${a.join('')}`);
const prose = fc.array(fc.stringMatching(/^[a-z]{1,6}$/), { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));

/** The token spelt out in pieces after `before` and before `after`, other events interleaved. */
const spelt = fc
  .tuple(token, prose, prose, fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), fc.array(fc.boolean(), { maxLength: 8 }))
  .map(([secret, before, after, cuts, others]) => {
    const at = [...new Set(cuts.map((c) => 1 + (c % (secret.length - 1))))].sort((a, b) => a - b);
    const pieces = [0, ...at].map((from, k) => secret.slice(from, at[k] ?? secret.length));
    const texts = [`${before} ${pieces[0]}`, ...pieces.slice(1, -1), `${pieces.at(-1)} ${after}`];
    const events: SseItem[] = [];
    texts.forEach((t, k) => {
      events.push(delta(t, k * 2));
      if (others[k]) events.push(delta('tick', k * 2 + 1, 'status'));
    });
    return { secret, before, after, events };
  });

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

  it('a credential the client sent, spelt out by the model in pieces, is cut from every piece: whole cassette, two passes, session', () => {
    fc.assert(
      fc.property(spelt, ({ secret, before, after, events }) => {
        const expected = `${before} <redacted:authorization> ${after}`;
        const c = cassetteOf([withCredential(secret), streamOf(events)]);
        // The whole cassette at once (a save).
        expect(streamText(redactCassette(c).interactions[1])).toBe(expected);
        // Learnt interaction by interaction, then scrubbed (the save-ahead and the streaming save).
        const pass = makeRedactor().twoPass();
        for (const i of c.interactions) pass.learn(i);
        expect(streamText(pass.scrub(c.interactions[1] as Interaction))).toBe(expected);
        // Piece by piece, the credential first (the journal).
        const session = makeRedactor().session();
        session(cassetteOf([withCredential(secret)]));
        const cleaned = session(cassetteOf([streamOf(events)])).interactions[0];
        expect(streamText(cleaned)).toBe(expected);
        // Nothing else changed: the other events are as they were.
        expect(streamText(cleaned, 'status')).toBe(streamText(streamOf(events), 'status'));
      }),
      { numRuns: 300 },
    );
  });

  it('bench proxy under a wrapper saves no piece of a credential a curl client sent and the server streamed back in pieces', async () => {
    const secret = 'TQ7ZX2MPK9RWN4BV8HJD';
    const server = await startServer(async (req, res) => {
      const credential = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: delta\ndata: ${JSON.stringify({ delta: 'your key is ' })}\n\n`);
      // Four characters an event, paced across the recorder's windows, as a model streams tokens.
      for (let k = 0; k < credential.length; k += 4) {
        res.write(`event: delta\ndata: ${JSON.stringify({ delta: credential.slice(k, k + 4) })}\n\n`);
        await sleep(15);
      }
      res.end(`event: delta\ndata: ${JSON.stringify({ delta: ', keep it safe' })}\n\n`);
    });
    cleanups.push(() => server.close());
    const { file, url, bench } = await benchProxyUnderWrapper(server.url, 'spelt.yaml', cleanups);
    const { stdout } = await promisify(execFile)('curl', ['-sSN', '--compressed', '-H', `Authorization: Bearer ${secret}`, `${url}/chat`]);
    expect(stdout).toContain(secret.slice(0, 4));
    process.kill(bench.wrapperPid, 'SIGKILL');
    await bench.ended;
    const text = await readFile(file, 'utf8');
    for (let k = 0; k + 4 <= secret.length; k += 4) expect(text).not.toContain(secret.slice(k, k + 4));
    const cassette = await loadCassette(file);
    expect(streamText(cassette.interactions[0])).toBe('your key is <redacted:authorization>, keep it safe');
  }, 60_000);
});
