import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { type Cassette, loadCassette, parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { findHarness } from '../../src/families/omnigent/harnesses.js';
import { SessionDriver } from '../../src/families/omnigent/index.js';
import { openSessionStream } from '../../src/families/omnigent/session-client.js';
import { startOmnigentSimulator } from '../../src/families/omnigent/simulator/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { ReplayEngine, startReplayServer } from '../../src/replayer/index.js';
import { SseParser } from '../../src/sse/index.js';
import { readBody, sleep, startServer } from '../helpers/servers.js';

const CASSETTES = join(import.meta.dirname, '..', '..', 'cassettes');
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Reads SSE events from a fetch response, noting the order in which things happened. */
async function readEvents(res: Response, onEvent: (type: string) => void): Promise<void> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const parser = new SseParser();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    for (const f of parser.push(value)) if (f.kind === 'event') onEvent(f.event ?? f.data ?? '');
  }
}

async function replayServer(cassette: Cassette) {
  const replay = await startReplayServer([{ name: 'c.yaml', cassette: parseCassette(serializeCassette(cassette)) }]);
  cleanups.push(() => replay.close());
  return replay;
}

describe('replay', () => {
  it('serves a plain Python client: it sees the recorded events in order and the recorded reply', async () => {
    const cassette = await loadCassette(join(CASSETTES, 'kiro-native', 'basic_turn.yaml'));
    const replay = await replayServer(cassette);
    const post = cassette.interactions.find((i) => i.request.path.endsWith('/events'));
    if (!post) throw new Error('no POST in the cassette');
    const session = post.request.path.split('/')[3] as string;
    const prompt = ((post.request.body as { json: { data: { content: { text: string }[] } } }).json.data.content[0] as { text: string })
      .text;
    const { stdout } = await promisify(execFile)(
      '/usr/bin/python3',
      [join(import.meta.dirname, 'python_client.py'), replay.url, session, prompt],
      { timeout: 30_000 },
    );
    const recorded = cassette.interactions.find((i) => i.response?.stream)?.response?.stream?.events.map((e) => e.event) ?? [];
    expect(stdout.trim().split('\n')).toEqual([...recorded, 'text: KIRO_NATIVE_OK']);
  });

  it('holds every event caused by the POST until the client posts, even when it waits a second first', async () => {
    let stream: import('node:http').ServerResponse | undefined;
    const server = await startServer(async (req, res) => {
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: heartbeat\ndata: {}\n\n');
        stream = res;
      } else {
        await readBody(req);
        res.writeHead(202, { 'content-type': 'application/json' });
        res.end('{"queued":true}');
        for (const e of ['in_progress', 'delta', 'delta', 'completed']) stream?.write(`event: ${e}\ndata: {}\n\n`);
        stream?.end('data: [DONE]\n\n');
      }
    });
    cleanups.push(() => server.close());
    const proxy = await startRecordingProxy({ target: server.url });
    const live: string[] = [];
    const res = await fetch(`${proxy.url}/stream`);
    const reading = readEvents(res, (t) => live.push(t));
    while (live.length === 0) await sleep(5);
    await fetch(`${proxy.url}/events`, { method: 'POST', body: '{"type":"message"}' });
    await reading;
    const replay = await replayServer(await proxy.close());

    const order: string[] = [];
    const replayed = readEvents(await fetch(`${replay.url}/stream`), (t) => order.push(`event ${t}`));
    while (order.length === 0) await sleep(5);
    await sleep(1000);
    order.push('client posts');
    await fetch(`${replay.url}/events`, { method: 'POST', body: '{"type":"message"}' });
    await replayed;
    expect(order).toEqual([
      'event heartbeat',
      'client posts',
      'event in_progress',
      'event delta',
      'event delta',
      'event completed',
      'event [DONE]',
    ]);
  });

  it('gives a driver polling three times faster or slower than the recording the same TurnResult', async () => {
    const harness = findHarness('claude-native');
    if (!harness) throw new Error('no harness');
    const sim = await startOmnigentSimulator({ seed: 5, latencyMs: 10 });
    cleanups.push(() => sim.close());
    const proxy = await startRecordingProxy({ target: sim.url });

    /** A seed-style turn: subscribe, post, poll /items every `pollMs` until the reply item shows up. */
    async function pollingTurn(baseUrl: string, fetchImpl: typeof fetch, pollMs: number, sessionId?: string) {
      const driver = new SessionDriver(baseUrl, harness as NonNullable<typeof harness>, undefined, (u, i) => fetchImpl(u, i));
      if (!sessionId) await driver.provision();
      const id = sessionId ?? driver.session;
      const reader = await openSessionStream(baseUrl, id, (u, i) => fetchImpl(u, i), 5000);
      await fetchImpl(`${baseUrl}/v1/sessions/${id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'message',
          data: { role: 'user', content: [{ type: 'input_text', text: 'Count from 1 to 20 in words, one per line.' }] },
        }),
      });
      let text = '';
      let polls = 0;
      for (; polls < 500 && text === ''; polls++) {
        const items = (await (await fetchImpl(`${baseUrl}/v1/sessions/${id}/items?order=asc`)).json()) as {
          data: { role?: string; content?: { text: string }[] }[];
        };
        text = items.data.find((i) => i.role === 'assistant')?.content?.[0]?.text ?? '';
        if (text === '') await sleep(pollMs);
      }
      const done = await reader.waitFor((e) => e.type === 'response.output_item.done', 5000);
      reader.close();
      // The deltas up to the reply item: what follows it (claude-native's closing empty delta) races the close.
      const upToItem = done ? reader.events.slice(0, reader.events.indexOf(done)) : reader.events;
      return {
        id,
        polls,
        result: { text, deltas: upToItem.filter((e) => e.type === 'response.output_text.delta').length, completed: done !== undefined },
      };
    }

    const recorded = await pollingTurn(proxy.url, fetch, 30);
    const cassette = parseCassette(serializeCassette(await proxy.close()));
    expect(recorded.polls).toBeGreaterThan(3);
    for (const timing of ['instant', 'realtime'] as const) {
      for (const pollMs of [10, 90]) {
        const again = await startReplayServer([{ name: 'poll.yaml', cassette }], { timing });
        cleanups.push(() => again.close());
        const run = await pollingTurn(again.url, fetch, pollMs, recorded.id);
        expect({ timing, pollMs, ...run.result }).toEqual({ timing, pollMs, ...recorded.result });
      }
    }
  });

  it('names the nearest recorded request and the field that differs when nothing matches (strict)', async () => {
    const cassette = await loadCassette(join(CASSETTES, 'kiro-native', 'basic_turn.yaml'));
    const engine = new ReplayEngine([{ name: 'kiro-native/basic_turn.yaml', cassette }]);
    const post = cassette.interactions.find((i) => i.request.path.endsWith('/events'));
    const body = Buffer.from(
      JSON.stringify({ type: 'message', data: { role: 'user', content: [{ type: 'input_text', text: 'Hello there' }] } }),
    );
    const answer = engine.handle({ method: 'POST', path: post?.request.path as string, headers: {}, body });
    expect(answer.kind).toBe('unmatched');
    expect(answer.kind === 'unmatched' && answer.status).toBe(400);
    expect(engine.misses[0]?.message).toMatchInlineSnapshot(
      `"no recorded interaction matches POST /v1/sessions/f7e79d2b47f666309ce301f0b8829f5c/events. Nearest: kiro-native/basic_turn.yaml #9 POST /v1/sessions/f7e79d2b47f666309ce301f0b8829f5c/events (body.data.content[0].text: recorded "Reply with exactly the literal string KIRO_NATIVE_OK and..., got "Hello there"); kiro-native/basic_turn.yaml #4 POST /v1/sessions (path segment 3: recorded "(none)", got "f7e79d2b47f666309ce301f0b8829f5c"); kiro-native/basic_turn.yaml #5 POST /v1/sessions/f7e79d2b47f666309ce301f0b8829f5c/resources/terminals (path segment 4: recorded "resources", got "events"). Record again, or ignore that field: "ignoreBodyPaths": ["data.content.0.text"] (the "match" section of tapedeck.config.json, or the ignoreBodyPaths option)."`,
    );
  });

  it('matches requests that differ only in listed noise (a uuid in a policy name, an idempotency key)', async () => {
    const cassette = await loadCassette(join(CASSETTES, 'claude-native', 'policy_deny.yaml'));
    const policy = cassette.interactions.find((i) => i.request.path.endsWith('/policies') && i.request.method === 'POST');
    if (!policy) throw new Error('no policy POST in the cassette');
    const recordedBody = (policy.request.body as { json: Record<string, unknown> }).json;
    const body = Buffer.from(JSON.stringify({ ...recordedBody, name: 'bench_tool_deny_0f3c9a1e' }));
    const strictEngine = new ReplayEngine([{ name: 'c', cassette }]);
    expect(strictEngine.handle({ method: 'POST', path: policy?.request.path as string, headers: {}, body }).kind).toBe('unmatched');
    const tolerant = new ReplayEngine([{ name: 'c', cassette }], { ignoreBodyPaths: ['name'], matchHeaders: [] });
    expect(
      tolerant.handle({ method: 'POST', path: policy?.request.path as string, headers: { 'idempotency-key': 'abc' }, body }).kind,
    ).toBe('response');
  });

  it('breaks a stream recorded as broken at the same event, with the error class the client saw live', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: a\ndata: 1\n\nevent: b\ndata: 2\n\n');
      setTimeout(() => res.socket?.destroy(), 50);
    });
    cleanups.push(() => server.close());
    const proxy = await startRecordingProxy({ target: server.url });
    const liveEvents: string[] = [];
    const liveError = await readEvents(await fetch(`${proxy.url}/s`), (t) => liveEvents.push(t)).catch((e: Error) => e);
    const cassette = await proxy.close();
    expect(cassette.interactions[0]?.response?.stream?.end).toBe('broken');

    const replay = await replayServer(cassette);
    const replayEvents: string[] = [];
    const replayError = await readEvents(await fetch(`${replay.url}/s`), (t) => replayEvents.push(t)).catch((e: Error) => e);
    expect(liveEvents).toEqual(['a', 'b']);
    expect(replayEvents).toEqual(liveEvents);
    expect(liveError).toBeInstanceOf(TypeError);
    expect(replayError).toBeInstanceOf(TypeError);
    expect((replayError as Error).message).toBe((liveError as Error).message);
  });
});
