import { describe, expect, it } from 'vitest';
import { CodexClient } from '../../src/families/codex/index.js';
import { runBench, startBench } from '../helpers/cli.js';

describe('bench sim', () => {
  it('serves the Hermes gateway with --target hermes, behind its API key, until SIGTERM', async () => {
    const key = 'a-test-key-of-twenty-chars';
    const sim = await startBench(['sim', '--target', 'hermes', '--api-key', key]);
    try {
      expect((await fetch(`${sim.url}/health`)).status).toBe(200);
      const post = (auth: string) =>
        fetch(`${sim.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
        });
      expect((await post('Bearer wrong')).status).toBe(401);
      const ok = await post(`Bearer ${key}`);
      expect(((await ok.json()) as { object: string }).object).toBe('chat.completion');
    } finally {
      sim.child.kill('SIGTERM');
    }
    expect(await sim.exit()).toBe(0);
  });

  it('serves the codex app-server simulator over WebSocket with --target codex', async () => {
    const sim = await startBench(['sim', '--target', 'codex']);
    try {
      expect(sim.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
      const client = await CodexClient.connect(sim.url);
      const thread = (await client.request('thread/start', { cwd: '/w' })).thread as { id: string };
      expect(thread.id).toMatch(/^[0-9a-f]{8}-/);
      await client.close();
    } finally {
      sim.child.kill('SIGTERM');
    }
    expect(await sim.exit()).toBe(0);
  });

  it('serves the mock model with --target model: a streamed chat completion ending in [DONE]', async () => {
    const sim = await startBench(['sim', '--target', 'model']);
    try {
      const res = await fetch(`${sim.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: 'Say hi.' }] }),
      });
      const text = await res.text();
      expect(text).toContain('"content":"mock."');
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    } finally {
      sim.child.kill('SIGTERM');
    }
    expect(await sim.exit()).toBe(0);
  });

  it('refuses a short key, an unknown target, and --mutate on the gateway in one line', async () => {
    for (const args of [
      ['--target', 'hermes', '--api-key', 'short'],
      ['--target', 'nope'],
      ['--target', 'hermes', '--mutate', 'no-sentinel'],
    ]) {
      const r = await runBench(['sim', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
