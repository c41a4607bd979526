import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventSource } from 'eventsource';
import { setupServer } from 'msw/node';
import OpenAI from 'openai';
import { fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { cassetteDispatcher, cassetteHandlers, loadCassetteSet, releaseMockedBodies } from '../../src/replayer/index.js';
import { benchReplayOf } from '../helpers/cli.js';
import { startServer } from '../helpers/servers.js';

/**
 * Faults seen by clients nobody here wrote: the official openai SDK retries a 503 with Retry-After and then
 * streams the recorded answer; the `eventsource` client reconnects after a reset mid-stream. Through `bench
 * replay --fault` (a real process) and the in-process doors.
 */

const HERMES = 'cassettes/clients/openai-sdk-hermes.yaml';
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** The first streamed turn of the committed openai corpus, as the SDK's user reads it. */
async function sayHello(client: OpenAI): Promise<string> {
  const stream = await client.chat.completions.create({
    model: 'hermes-agent',
    messages: [{ role: 'user', content: 'Say hello.' }],
    stream: true,
  });
  let text = '';
  for await (const chunk of stream) for (const choice of chunk.choices ?? []) text += choice.delta.content ?? '';
  return text;
}

const RETRY_503 = 'kind=status,status=503,header.retry-after=1,method=POST,path=/v1/chat/completions,call=1';

describe('the openai SDK against a 503 with Retry-After', () => {
  it('through bench replay: retries after the wait the header names, then streams the recorded answer', async () => {
    const plain = await benchReplayOf(HERMES, cleanups);
    const expected = await sayHello(new OpenAI({ baseURL: `${plain.url}/v1`, apiKey: 'k', maxRetries: 0 }));
    expect(expected.length).toBeGreaterThan(0);

    const replay = await benchReplayOf(HERMES, cleanups, ['--fault', RETRY_503]);
    const started = performance.now();
    const text = await sayHello(new OpenAI({ baseURL: `${replay.url}/v1`, apiKey: 'k', maxRetries: 2 }));
    expect(text).toBe(expected);
    // The SDK waited as told (about a second) before its retry.
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    await replay.waitForStderr('fault status (rule 1, call 1) on POST /v1/chat/completions');
    replay.child.kill('SIGTERM');
    await replay.exit();
    expect(replay.stderr()).toContain('injected 1 faults: rule 1 status ×1');
  }, 60_000);

  it('through the MSW door: the same retry, the same answer, the fault counted', async () => {
    const { handlers, engine } = cassetteHandlers(await loadCassetteSet(HERMES), {
      faults: [{ kind: 'status', status: 503, headers: { 'retry-after-ms': '50' }, method: 'POST', call: 1 }],
      config: false,
    });
    const msw = setupServer(...handlers);
    releaseMockedBodies(msw);
    msw.listen({ onUnhandledRequest: 'error' });
    try {
      const text = await sayHello(new OpenAI({ baseURL: 'http://hermes.test/v1', apiKey: 'k', maxRetries: 2 }));
      expect(text.length).toBeGreaterThan(0);
      expect(engine.injectedFaults).toEqual([expect.objectContaining({ kind: 'status', method: 'POST', call: 1 })]);
      expect(engine.misses).toEqual([]);
    } finally {
      msw.close();
    }
  }, 60_000);
});

describe('an EventSource client against a reset mid-stream', () => {
  let feed: string;
  let dir: string;
  beforeAll(async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('retry: 50\nid: 1\ndata: one\n\n');
      res.write('id: 2\ndata: two\n\n');
      res.write('id: 3\ndata: three\n\n');
      res.end('id: 4\ndata: four\n\n');
    });
    const proxy = await startRecordingProxy({ target: server.url });
    await (await fetch(`${proxy.url}/feed`)).text();
    dir = await mkdtemp(join(tmpdir(), 'tapedeck-faults-sse-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    feed = join(dir, 'feed.yaml');
    await writeFile(feed, serializeCassette(await proxy.close()));
    await server.close();
  });

  /** Reads messages until `four`, noting each open and error: what the client's user sees of the reconnect. */
  async function readUntilFour(url: string, fetcher?: typeof fetch): Promise<string[]> {
    const seen: string[] = [];
    const source = new EventSource(url, fetcher ? { fetch: fetcher } : {});
    await new Promise<void>((resolve) => {
      source.onopen = () => seen.push('open');
      source.onerror = () => seen.push('error');
      source.onmessage = (e) => {
        seen.push(`${e.lastEventId}:${e.data}`);
        if (e.data === 'four') resolve();
      };
    });
    source.close();
    return seen;
  }

  it('through bench replay with a faults file: the first stream breaks after two events, the client reconnects', async () => {
    const faults = join(dir, 'faults.yaml');
    await writeFile(faults, 'seed: 3\nfaults:\n  - kind: reset-after\n    events: 2\n    path: /feed\n    call: 1\n');
    const replay = await benchReplayOf(feed, cleanups, ['--faults', faults]);
    expect(await readUntilFour(`${replay.url}/feed`)).toEqual([
      'open',
      '1:one',
      '2:two',
      'error',
      'open',
      '1:one',
      '2:two',
      '3:three',
      '4:four',
    ]);
    await replay.waitForStderr('fault reset-after (rule 1, call 1) on GET /feed');
  }, 60_000);

  it('through the undici door, the fetch the client is given', async () => {
    const dispatcher = cassetteDispatcher(await loadCassetteSet(feed), {
      faults: [{ kind: 'reset-after', events: 1, call: 1 }],
      config: false,
    });
    const fetcher = ((url: string, init: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher })) as unknown as typeof fetch;
    expect(await readUntilFour('http://feed.test/feed', fetcher)).toEqual([
      'open',
      '1:one',
      'error',
      'open',
      '1:one',
      '2:two',
      '3:three',
      '4:four',
    ]);
    expect(dispatcher.engine.faultCount).toBe(1);
  }, 60_000);
});
