import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { loadCassette } from '../../../src/cassette/index.js';
import { verifyCassette } from '../../../src/contracts/index.js';
import {
  CODEX_PROBE_NAMES,
  CodexClient,
  codexFamily,
  methodOf,
  RpcCallError,
  replayCodexProbe,
} from '../../../src/families/codex/index.js';
import { type CodexSimulator, startCodexSimulator } from '../../../src/families/codex/simulator/index.js';
import { loadManifest } from '../../../src/manifest/index.js';
import { recordFamily } from '../../../src/probing/index.js';
import { folderWithoutTiming, tempDir } from '../omnigent/helpers.js';

const COMMITTED = join(import.meta.dirname, '..', '..', '..', 'cassettes', 'codex-app-server');
let sim: CodexSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('bench record --target codex', () => {
  it('records every probe over WebSocket as SUPPORTED, exactly as committed (seed 1), and the cassettes verify clean', async () => {
    const outDir = await tempDir('codex');
    const manifest = await recordFamily(codexFamily, { outDir });
    expect(Object.fromEntries(manifest.probes.map((p) => [p.probe, p.verdict]))).toEqual(
      Object.fromEntries(CODEX_PROBE_NAMES.map((n) => [n, 'SUPPORTED'])),
    );
    expect(await folderWithoutTiming(join(outDir, 'codex-app-server'))).toEqual(await folderWithoutTiming(COMMITTED));
    expect((await loadManifest(join(COMMITTED, 'manifest.yaml'))).probes).toEqual(manifest.probes);
    for (const name of CODEX_PROBE_NAMES) {
      const checked = verifyCassette(await loadCassette(join(COMMITTED, `${name}.yaml`)), name);
      expect(checked.rules.flatMap((r) => r.violations)).toEqual([]);
      expect(checked.rules.length).toBe(13);
    }
  });

  it('replays each committed probe offline with its verdict and no unmatched frame', async () => {
    for (const name of CODEX_PROBE_NAMES) {
      const out = await replayCodexProbe(name, await loadCassette(join(COMMITTED, `${name}.yaml`)));
      expect([name, out.verdict, out.misses]).toEqual([name, 'SUPPORTED', []]);
    }
  });

  it.each([['codex-app-server'], ['codex-app-server-real']])(
    '%s: an interrupted turn replays in the order the reference lists: the interrupt answer, idle, turn/completed, then serverRequest/resolved',
    async (folder) => {
      const file = join(COMMITTED, '..', folder, 'interrupt.yaml');
      const frames = (await loadCassette(file)).interactions[0]?.response?.websocket?.frames ?? [];
      const afterInterrupt = frames.slice(
        frames.findIndex((f) => (f.json as { method?: string } | undefined)?.method === 'turn/interrupt'),
      );
      const server = afterInterrupt.filter((f) => f.from === 'server').map((f) => methodOf(f.json as Record<string, unknown>));
      // The real server may still deliver the turn's usage, sent before the interrupt arrived; from its answer on, CX8 holds.
      expect(server.slice(server.indexOf('response'))).toEqual([
        'response',
        'thread/status/changed',
        'turn/completed',
        'serverRequest/resolved',
      ]);
      // And a live client replaying it sees the same order.
      const out = await replayCodexProbe('interrupt', await loadCassette(file));
      expect(out.reason).toContain('serverRequest/resolved after turn/completed');
    },
  );
});

describe('the codex app-server simulator', () => {
  it('enforces the handshake: nothing before initialize, and initialize only once', async () => {
    sim = await startCodexSimulator();
    const ws = new WebSocket(sim.url);
    await new Promise((r) => ws.once('open', r));
    const reply = new Promise<Record<string, unknown>>((r) => ws.once('message', (d) => r(JSON.parse(String(d)))));
    ws.send(JSON.stringify({ id: 1, method: 'thread/start', params: {} }));
    expect(await reply).toEqual({ id: 1, error: { code: -32600, message: 'Not initialized' } });
    ws.close();
    const client = await CodexClient.connect(sim.url);
    await expect(client.request('initialize', { clientInfo: { name: 'x', version: '1' } })).rejects.toThrow(/Already initialized/);
    await expect(client.request('turn/interrupt', { threadId: 'nope', turnId: 'x' })).rejects.toBeInstanceOf(RpcCallError);
    const thread = (await client.request('thread/start', { cwd: '/w' })).thread as { id: string };
    await expect(client.request('thread/resume', { threadId: thread.id })).rejects.toThrow(/no rollout found/);
    await client.close();
  });

  it('answers /readyz, refuses a plain GET with 400 and any Origin with 403', async () => {
    sim = await startCodexSimulator();
    const http = sim.url.replace(/^ws/, 'http');
    expect((await fetch(`${http}/readyz`)).status).toBe(200);
    expect((await fetch(`${http}/`)).status).toBe(400);
    const ws = new WebSocket(sim.url, { headers: { origin: 'http://evil.example' } });
    const status = await new Promise<number>((resolve) => ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(403);
  });
});
