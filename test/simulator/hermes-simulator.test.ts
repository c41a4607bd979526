import { afterEach, describe, expect, it } from 'vitest';
import { verifyCassette } from '../../src/contracts/index.js';
import { REPLAY_ORIGIN } from '../../src/families/kit/index.js';
import { cassetteFetch } from '../../src/probing/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import '../../src/vitest/index.js';
import { type HermesSimulator, startHermesSimulator } from '../../src/families/hermes/simulator/index.js';
import { SseParser } from '../../src/sse/index.js';

let sim: HermesSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const post = (url: string, key: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('the hermes gateway simulator', () => {
  it('refuses a wrong key with the gateway auth envelope', async () => {
    sim = await startHermesSimulator();
    const res = await post(`${sim.url}/v1/chat/completions`, 'wrong-key', { messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: { message: 'Invalid gateway API key (API_SERVER_KEY)', type: 'gateway_auth_error', param: null, code: 'gateway_auth_failed' },
    });
  });

  it('streams chat completions and Responses that satisfy their packs, recorded through the proxy', async () => {
    sim = await startHermesSimulator({ seed: 3 });
    const proxy = await startRecordingProxy({ target: sim.url });
    const chat = await post(`${proxy.url}/v1/chat/completions`, sim.apiKey, {
      model: 'hermes-agent',
      stream: true,
      messages: [{ role: 'user', content: 'Use the tool to run: echo 4' }],
    });
    expect(await chat.text()).toMatch(/event: hermes\.tool\.progress[\s\S]*data: \[DONE\]\n\n$/);
    const resp = await post(`${proxy.url}/v1/responses`, sim.apiKey, { input: 'run ls', stream: true });
    expect(await resp.text()).toContain('event: response.completed');
    const cassette = await proxy.close();
    const chatOnly = { ...cassette, interactions: cassette.interactions.filter((i) => i.request.path === '/v1/chat/completions') };
    const respOnly = { ...cassette, interactions: cassette.interactions.filter((i) => i.request.path === '/v1/responses') };
    const broken = (c: typeof cassette, pack: string) =>
      verifyCassette(c, pack, [pack]).rules.flatMap((r) => r.violations.map((v) => v.message));
    expect(broken(chatOnly, 'openai/chat-completions')).toEqual([]);
    expect(broken(respOnly, 'hermes/responses')).toEqual([]);
    // The Hermes profile is not the official stream: no in_progress, no content parts.
    expect(broken(respOnly, 'openai/responses').length).toBeGreaterThan(0);
  });

  it('replays an exact Idempotency-Key retry without running the agent again, and refuses a changed body', async () => {
    sim = await startHermesSimulator();
    const proxy = await startRecordingProxy({ target: sim.url });
    const url = `${proxy.url}/v1/responses`;
    const first = await post(url, sim.apiKey, { input: 'hi' }, { 'idempotency-key': 'k1' });
    const firstBody = (await first.json()) as { id: string };
    const retry = await post(url, sim.apiKey, { input: 'hi' }, { 'idempotency-key': 'k1' });
    expect(retry.headers.get('idempotency-replayed')).toBe('true');
    expect(((await retry.json()) as { id: string }).id).toBe(firstBody.id);
    const conflict = await post(url, sim.apiKey, { input: 'bye' }, { 'idempotency-key': 'k1' });
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as { error: { code: string } }).error.code).toBe('admission_conflict');
    expect(sim.agentRuns).toBe(1);
    const cassette = await proxy.close();

    // Offline, the replay answers the same three requests the same way: one run, one replay, one refusal.
    await sim.close();
    sim = undefined;
    const offline = cassetteFetch([{ name: 'idempotency', cassette }]);
    const again = async (input: string) =>
      offline(`${REPLAY_ORIGIN}/v1/responses`, {
        method: 'POST',
        headers: { authorization: 'Bearer x', 'content-type': 'application/json', 'idempotency-key': 'k1' },
        body: JSON.stringify({ input }),
      });
    const ids = [await again('hi'), await again('hi')].map(async (r) => ((await r.json()) as { id: string }).id);
    expect(await Promise.all(ids)).toEqual([firstBody.id, firstBody.id]);
    expect((await again('bye')).status).toBe(409);
  });

  it('fences control answers: exact body, current execution_generation, a pending prompt', async () => {
    sim = await startHermesSimulator();
    const key = sim.apiKey;
    const run = (await (await post(`${sim.url}/v1/runs`, key, { input: 'clarify which file' })).json()) as { run_id: string };
    const view = (await (await fetch(`${sim.url}/v1/runs/${run.run_id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      execution_generation: number;
      pending_controls: { prompt_id: string; kind: string }[];
    };
    const prompt = view.pending_controls[0]?.prompt_id;
    expect(view.pending_controls[0]?.kind).toBe('clarify');
    const answer = (body: unknown) => post(`${sim?.url}/v1/runs/${run.run_id}/clarify`, key, body);
    const code = async (r: Promise<Response>) => {
      const res = await r;
      return [res.status, ((await res.json()) as { error?: { code: string } }).error?.code];
    };
    expect(await code(answer({ request_id: prompt, execution_generation: 1, answer: 'x', extra: 1 }))).toEqual([400, 'invalid_params']);
    expect(await code(answer({ request_id: prompt, execution_generation: 7, answer: 'x' }))).toEqual([409, 'stale_generation']);
    expect(await code(answer({ request_id: 'prm_other', execution_generation: 1, answer: 'x' }))).toEqual([409, 'approval_not_pending']);
    expect(await code(answer({ request_id: prompt, execution_generation: view.execution_generation, answer: 'notes.txt' }))).toEqual([
      200,
      undefined,
    ]);
    expect(await code(answer({ request_id: prompt, execution_generation: 1, answer: 'again' }))).toEqual([409, 'approval_not_pending']);
  });

  it('runs one turn at a time per session: a second waits queued, and stopping it cancels it outright', async () => {
    sim = await startHermesSimulator();
    const key = sim.apiKey;
    const first = (await (await post(`${sim.url}/v1/runs`, key, { input: 'a long essay', session_id: 's1' })).json()) as { run_id: string };
    const second = (await (await post(`${sim.url}/v1/runs`, key, { input: 'hi', session_id: 's1' })).json()) as { run_id: string };
    const status = async (id: string) =>
      ((await (await fetch(`${sim?.url}/v1/runs/${id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { status: string })
        .status;
    expect(await status(first.run_id)).toBe('running');
    expect(await status(second.run_id)).toBe('queued');
    const stopped = (await (await post(`${sim.url}/v1/runs/${second.run_id}/stop`, key, {})).json()) as { status: string };
    expect(stopped.status).toBe('cancelled');
    expect((await (await post(`${sim.url}/v1/runs/${first.run_id}/stop`, key, {})).json()) as { status: string }).toMatchObject({
      status: 'stopping',
    });
    // Its events stream ends with the terminal event, so reading it to the end waits exactly as long as needed.
    const events = await (await fetch(`${sim.url}/v1/runs/${first.run_id}/events`, { headers: { authorization: `Bearer ${key}` } })).text();
    expect(events).toMatch(/"event":"run.cancelled"[^\n]*\n\n: stream closed\n\n$/);
    expect(await status(first.run_id)).toBe('cancelled');
    expect(sim.agentRuns).toBe(1);
  });

  it('keeps runs inside their /p/{profile}, refuses a busy session stream with its run, and a bad Idempotency-Key', async () => {
    sim = await startHermesSimulator();
    const key = sim.apiKey;
    const run = (await (await post(`${sim.url}/p/alpha/v1/runs`, key, { input: 'hi' })).json()) as { run_id: string };
    const get = (path: string) => fetch(`${sim?.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    expect((await get(`/p/alpha/v1/runs/${run.run_id}`)).status).toBe(200);
    expect((await get(`/p/beta/v1/runs/${run.run_id}`)).status).toBe(404);
    expect((await get(`/v1/runs/${run.run_id}`)).status).toBe(404);
    const bad = await post(`${sim.url}/v1/runs`, key, { input: 'hi' }, { 'idempotency-key': 'has space' });
    expect([bad.status, ((await bad.json()) as { error: { code: string } }).error.code]).toEqual([400, 'invalid_idempotency_key']);

    await post(`${sim.url}/api/sessions`, key, { id: 'busy' });
    const streaming = await post(`${sim.url}/api/sessions/busy/chat/stream`, key, { message: 'a long essay' });
    const reader = streaming.body?.getReader();
    await reader?.read();
    const busy = await post(`${sim.url}/api/sessions/busy/chat/stream`, key, { message: 'hi' });
    const error = ((await busy.json()) as { error: { code: string; run_id: string } }).error;
    expect([busy.status, error.code, error.run_id]).toEqual([409, 'run_already_active', expect.stringMatching(/^run_[0-9a-f]{32}$/)]);
    await reader?.cancel();
  });

  it('refuses an unknown room grant with 401 and a revoked one with 403', async () => {
    sim = await startHermesSimulator();
    const key = sim.apiKey;
    const invite = (await (await post(`${sim.url}/v1/room-members/invitations`, key, { room_id: 'r', member_id: 'm' })).json()) as {
      grant: string;
    };
    const room = (grant: string) => ({ authorization: `HermesRoom ${grant}`, 'content-type': 'application/json' });
    const dispatch = (grant: string) =>
      fetch(`${sim?.url}/v1/runs`, { method: 'POST', headers: room(grant), body: JSON.stringify({ input: 'hi' }) });
    expect((await dispatch('hrg_unknown')).status).toBe(401);
    expect((await dispatch(invite.grant)).status).toBe(202);
    await fetch(`${sim.url}/v1/room-members/grants/revoke`, { method: 'POST', headers: room(invite.grant) });
    const refused = await dispatch(invite.grant);
    expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([
      403,
      'room_reauthorization_required',
    ]);
    // A grant is never the API key: it opens run routes only.
    expect((await fetch(`${sim.url}/v1/chat/completions`, { method: 'POST', headers: room(invite.grant), body: '{}' })).status).toBe(401);
  });

  it('fails a run as the reference frames it: status failed, run.failed on /v1/runs, assistant.completed then run.failed then done on the session', async () => {
    sim = await startHermesSimulator();
    const key = sim.apiKey;
    const run = (await (await post(`${sim.url}/v1/runs`, key, { input: 'crash please' })).json()) as { run_id: string };
    const events = await (await fetch(`${sim.url}/v1/runs/${run.run_id}/events`, { headers: { authorization: `Bearer ${key}` } })).text();
    expect(events).toMatch(/"event":"run.failed"/);
    const view = (await (await fetch(`${sim.url}/v1/runs/${run.run_id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      status: string;
      error: { message: string };
    };
    expect(view.status).toBe('failed');
    expect(view.error.message).toContain('simulated crash');
    await post(`${sim.url}/api/sessions`, key, { id: 'crashy' });
    const stream = await (await post(`${sim.url}/api/sessions/crashy/chat/stream`, key, { message: 'crash now' })).text();
    const names = [...stream.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(names.slice(-3)).toEqual(['assistant.completed', 'run.failed', 'done']);
    const frames = new SseParser().push(stream).flatMap((f) => (f.kind === 'event' ? [{ event: f.event, data: f.data }] : []));
    expect(frames).toSatisfyContract('hermes/session-stream');
    expect(events.split('\n\n').flatMap((f) => (f.startsWith('data: ') ? [{ data: f.slice(6) }] : []))).toSatisfyContract('hermes/runs');
  });

  it('answers 429 with Retry-After at the concurrent-run cap, lets an idempotent replay through, and 413 for a body over 10 MB', async () => {
    sim = await startHermesSimulator({ maxConcurrentRuns: 1 });
    const key = sim.apiKey;
    const first = await post(`${sim.url}/v1/runs`, key, { input: 'a long essay' }, { 'idempotency-key': 'k-long' });
    expect(first.status).toBe(202);
    const capped = await post(`${sim.url}/v1/runs`, key, { input: 'hi' });
    expect([capped.status, capped.headers.get('retry-after'), ((await capped.json()) as { error: { code: string } }).error.code]).toEqual([
      429,
      '1',
      'rate_limit_exceeded',
    ]);
    const replay = await post(`${sim.url}/v1/runs`, key, { input: 'a long essay' }, { 'idempotency-key': 'k-long' });
    expect(replay.status).toBe(202);
    const { request } = await import('node:http');
    const url = new URL(`${sim.url}/v1/runs`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-length': '10000001' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(413);
  });

  it('asks clarify.request on the session stream and takes the answer over /v1/runs, fenced by its generation', async () => {
    sim = await startHermesSimulator();
    const key = sim.apiKey;
    await post(`${sim.url}/api/sessions`, key, { id: 'ask' });
    const res = await post(`${sim.url}/api/sessions/ask/chat/stream`, key, { message: 'summarise a file, clarify which' });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const parser = new SseParser();
    const frames: { event?: string | undefined; data?: string | undefined }[] = [];
    let ask: { prompt_id: string; execution_generation: number; run_id: string } | undefined;
    while (!ask) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const f of parser.push(value)) {
        if (f.kind !== 'event') continue;
        frames.push({ event: f.event, data: f.data });
        if (f.event === 'clarify.request') ask = JSON.parse(f.data ?? '{}');
      }
    }
    expect(ask?.execution_generation).toBe(1);
    const answered = await post(`${sim.url}/v1/runs/${ask?.run_id}/clarify`, key, {
      request_id: ask?.prompt_id,
      execution_generation: ask?.execution_generation,
      answer: 'todo.txt',
    });
    expect(answered.status).toBe(200);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const f of parser.push(value)) if (f.kind === 'event') frames.push({ event: f.event, data: f.data });
    }
    expect(frames.map((f) => f.event)).toEqual([
      'run.started',
      'message.started',
      'reasoning.delta',
      'clarify.request',
      'clarify.settled',
      'assistant.delta',
      'assistant.delta',
      'assistant.completed',
      'run.completed',
      'done',
    ]);
    expect(frames).toSatisfyContract('hermes/session-stream');
    expect(frames.find((f) => f.event === 'assistant.completed')?.data).toContain('Summarised todo.txt.');
  });
});
