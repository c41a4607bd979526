import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Cassette, loadCassette } from '../../../src/cassette/index.js';
import { verifyCassette } from '../../../src/contracts/index.js';
import { HERMES_PROBE_NAMES, hermesFamily } from '../../../src/families/hermes/index.js';
import { REPLAY_ORIGIN } from '../../../src/families/kit/index.js';
import { counterexampleReplayOptions } from '../../../src/fuzz/index.js';
import { loadManifest } from '../../../src/manifest/index.js';
import { cassetteFetch, recordFamily } from '../../../src/probing/index.js';
import { folderWithoutTiming, tempDir } from '../omnigent/helpers.js';

const CASSETTES = join(import.meta.dirname, '..', '..', '..', 'cassettes');
const HERMES = join(CASSETTES, 'hermes');

const bodyOf = (c: Cassette, seq: number) => {
  const b = c.interactions.find((i) => i.seq === seq)?.response?.body;
  return (b && 'json' in b ? b.json : undefined) as Record<string, unknown> | undefined;
};

describe('bench record --target hermes', () => {
  it('records every gateway probe from the simulator as SUPPORTED, exactly as committed (seed 1), and the cassettes verify clean', async () => {
    const outDir = await tempDir('gateway');
    const manifest = await recordFamily(hermesFamily, { outDir });
    expect(Object.fromEntries(manifest.probes.map((p) => [p.probe, p.verdict]))).toEqual(
      Object.fromEntries(HERMES_PROBE_NAMES.map((n) => [n, 'SUPPORTED'])),
    );
    expect(manifest.suite).toBe('hermes-gateway');
    expect(await folderWithoutTiming(join(outDir, 'hermes'))).toEqual(await folderWithoutTiming(HERMES));
    expect((await loadManifest(join(HERMES, 'manifest.yaml'))).probes).toEqual(manifest.probes);
    for (const name of HERMES_PROBE_NAMES) {
      const checked = verifyCassette(await loadCassette(join(HERMES, `${name}.yaml`)), name);
      expect(checked.rules.flatMap((r) => r.violations)).toEqual([]);
      expect(checked.streams).toBeGreaterThan(0);
    }
  });

  it('the exact-retry cassette shows one run, and the conflicting retry is refused with the recorded status, offline too', async () => {
    const cassette = await loadCassette(join(HERMES, 'idempotent_retry.yaml'));
    const posts = cassette.interactions.filter((i) => i.request.method === 'POST' && i.request.path === '/v1/runs');
    expect(posts.map((i) => [i.response?.status, bodyOf(cassette, i.seq)?.replayed ?? bodyOf(cassette, i.seq)?.error])).toEqual([
      [202, false],
      [202, true],
      [409, expect.objectContaining({ code: 'idempotency_key_conflict' })],
    ]);
    const runId = bodyOf(cassette, posts[0]?.seq as number)?.run_id;
    expect(bodyOf(cassette, posts[1]?.seq as number)?.run_id).toBe(runId);
    // The agent ran once: one events stream, one run.completed, one more stored run.
    const streams = cassette.interactions.filter((i) => i.response?.stream);
    expect(streams.map((i) => i.request.path)).toEqual([`/v1/runs/${runId}/events`]);
    const stored = cassette.interactions
      .filter((i) => i.request.path === '/health/detailed')
      .map((i) => (bodyOf(cassette, i.seq)?.api_server as { stored_runs?: number } | undefined)?.stored_runs);
    expect(stored[1] as number).toBe((stored[0] as number) + 1);

    const fetch = cassetteFetch([{ name: 'retry', cassette }]);
    const post = (input: string) =>
      fetch(`${REPLAY_ORIGIN}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'bench-retry-1', authorization: 'Bearer any' },
        body: JSON.stringify({ input }),
      });
    const first = (await (await post('Say hello once.')).json()) as { run_id: string };
    const retry = await post('Say hello once.');
    expect(retry.headers.get('idempotency-replayed')).toBe('true');
    expect(((await retry.json()) as { run_id: string }).run_id).toBe(first.run_id);
    expect((await post('Say goodbye instead.')).status).toBe(409);
  });

  it('a run cancelled from another transport still holds when the server sends no delta at all (fuzz regression)', async () => {
    // Found by bench fuzz: the driver waited for an assistant.delta to interrupt; a legal stream has none.
    const cassette = await loadCassette(join(CASSETTES, 'regressions', 'hermes.cancel_cross_transport.yaml'));
    const events = cassette.interactions.flatMap((i) => i.response?.stream?.events ?? []);
    expect(events.some((e) => e.event === 'assistant.delta')).toBe(false);
    expect(verifyCassette(cassette, 'regression').rules.flatMap((r) => r.violations)).toEqual([]);
    const fetch = cassetteFetch([{ name: 'regression', cassette }], counterexampleReplayOptions(cassette));
    const out = await hermesFamily.replay({ harness: 'hermes', probe: 'cancel_cross_transport', file: '' }, { fetch });
    expect(out.replayed).toBe('SUPPORTED');
  });
});
