import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serializeCassette } from '../../src/cassette/index.js';
import { testCassette } from '../helpers/cassettes.js';
import { startBench } from '../helpers/cli.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const event = (at: number, after: number, session: string, type: string) => ({
  at,
  after,
  data: JSON.stringify({ type, properties: { sessionID: session } }),
});

/**
 * A client subscribed to a server-wide event stream, created a second session and, a while later as recorded,
 * subscribed again (a restarted harness): the second subscription carries the second session's events.
 */
const cassette = testCassette([
  {
    seq: 1,
    request: { method: 'GET', path: '/event', headers: {} },
    response: {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      stream: { events: [event(1, 1, 'ses_first01', 'server.connected')], end: 'client-closed' },
    },
    timing: { start: 0, headers: 1 },
  },
  {
    seq: 2,
    request: { method: 'POST', path: '/session', headers: {} },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: { json: { id: 'ses_second02' } } },
    timing: { start: 100, headers: 101, end: 102 },
  },
  {
    seq: 3,
    request: { method: 'GET', path: '/event', headers: {} },
    response: {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      stream: {
        events: [event(1500, 3, 'ses_second02', 'server.connected'), event(1510, 3, 'ses_second02', 'session.idle')],
        end: 'client-closed',
      },
    },
    timing: { start: 1500, headers: 1500 },
  },
]);

/** The first `n` SSE data lines of a stream, then it is let go. */
async function firstData(url: string, n: number): Promise<string[]> {
  const res = await fetch(url);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  while ((text.match(/^data: /gm) ?? []).length < n) text += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  return [...text.matchAll(/^data: (.*)$/gm)].map((m) => m[1] as string).slice(0, n);
}

describe('realtime replay of a stream subscribed to again', () => {
  it('gives the second subscription its own recording at once, not the first one over, however soon it comes', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'tapedeck-resubscribe-')), 'resubscribe.yaml');
    await writeFile(file, serializeCassette(cassette));
    const replay = await startBench(['replay', '--cassette', file, '--timing', 'realtime', '--port', '0']);
    cleanups.push(() => replay.child.kill('SIGKILL'));
    expect(await firstData(`${replay.url}/event`, 1)).toEqual([
      JSON.stringify({ type: 'server.connected', properties: { sessionID: 'ses_first01' } }),
    ]);
    expect(await (await fetch(`${replay.url}/session`, { method: 'POST' })).json()).toEqual({ id: 'ses_second02' });
    // Recorded 1.4 s after the session was made; a faster client subscribes at once.
    const started = performance.now();
    const second = await firstData(`${replay.url}/event`, 2);
    expect(second.map((d) => JSON.parse(d).properties.sessionID)).toEqual(['ses_second02', 'ses_second02']);
    // Its events keep their distance from its own request, not the recorded wait of 1.4 s before it: well under half.
    expect((performance.now() - started) / 1400).toBeLessThan(0.5);
  }, 30_000);
});
