import { afterEach, describe, expect, it } from 'vitest';
import { verifyCassette } from '../../src/contracts/index.js';
import { cassetteFetch, REPLAY_ORIGIN } from '../../src/probes/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { type HermesSimulator, startHermesSimulator } from '../../src/simulator/hermes/index.js';

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
});
