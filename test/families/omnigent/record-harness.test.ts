import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCassette } from '../../../src/cassette/index.js';
import { omnigentFamily } from '../../../src/families/omnigent/index.js';
import { loadManifest } from '../../../src/manifest/index.js';
import { type RecordFamilyOptions, recordFamily } from '../../../src/probing/index.js';
import { folderWithoutTiming, streamOf, tempDir } from './helpers.js';

type Extra = Omit<Partial<RecordFamilyOptions>, 'simulator'> & { simulator?: Record<string, unknown> };

const verdicts = async (harness: string, { simulator, ...extra }: Extra = {}) => {
  const outDir = await tempDir('record');
  const { seed, ...behaviour } = simulator ?? {};
  const manifest = await recordFamily(omnigentFamily, {
    variant: harness,
    outDir,
    ...extra,
    simulator: { seed: seed as number | undefined, extra: behaviour },
  });
  return { outDir, manifest, table: Object.fromEntries(manifest.probes.map((p) => [p.probe, p.verdict])) };
};

describe('bench record against the simulator, through the proxy', () => {
  it('reaches the declared verdict on every probe of a streaming, tool-mirroring, priced harness', async () => {
    const { table } = await verdicts('claude-native');
    expect(table).toEqual({
      basic_turn: 'SUPPORTED',
      streaming: 'SUPPORTED',
      tool_calling: 'SUPPORTED',
      policy_deny: 'SUPPORTED',
      policy_allow: 'SUPPORTED',
      policy_ask: 'SUPPORTED',
      cost_tracking: 'SUPPORTED',
      interrupt: 'SUPPORTED',
    });
  });

  it('marks what kiro-native does not declare as not applicable, and unreported cost as skipped', async () => {
    const { manifest, table } = await verdicts('kiro-native');
    expect(table).toEqual({
      basic_turn: 'SUPPORTED',
      streaming: 'NOT_APPLICABLE',
      tool_calling: 'NOT_APPLICABLE',
      policy_deny: 'SUPPORTED',
      policy_allow: 'NOT_APPLICABLE',
      policy_ask: 'SUPPORTED',
      cost_tracking: 'SKIPPED',
      interrupt: 'SUPPORTED',
    });
    expect(manifest.probes.find((p) => p.probe === 'cost_tracking')?.reason).toBe('no usage reported by kiro-native (own-auth)');
  });

  it('provisions a lazy-chat harness without waiting for external_session_id', async () => {
    const { outDir, table } = await verdicts('cursor-native', { probes: ['basic_turn', 'tool_calling'] });
    expect(table).toEqual({ basic_turn: 'SUPPORTED', tool_calling: 'SKIPPED' });
    const cassette = await loadCassette(join(outDir, 'cursor-native', 'basic_turn.yaml'));
    const routes = cassette.interactions.map((i) => `${i.request.method} ${i.request.path.replace(/[0-9a-f]{32}/g, 'ID')}`);
    // No snapshot poll between ensuring the terminal and posting the first message.
    const ensure = routes.indexOf('POST /v1/sessions/ID/resources/terminals');
    const post = routes.indexOf('POST /v1/sessions/ID/events');
    expect(routes.slice(ensure + 1, post)).not.toContain('GET /v1/sessions/ID');
    const created = cassette.interactions.find((i) => i.request.path === '/v1/sessions')?.response?.body;
    expect(created && 'json' in created && (created.json as { external_session_id: unknown }).external_session_id).toBeNull();
    const last = cassette.interactions
      .filter((i) => i.request.method === 'GET' && /^\/v1\/sessions\/[0-9a-f]{32}$/.test(i.request.path))
      .at(-1)?.response?.body;
    expect(last && 'json' in last && typeof (last.json as { external_session_id: unknown }).external_session_id).toBe('string');
  });

  it('interrupts mid-turn: after in_progress, before the turn ends, keeping only what was written', async () => {
    const { outDir } = await verdicts('codex-native', { probes: ['interrupt'] });
    const cassette = await loadCassette(join(outDir, 'codex-native', 'interrupt.yaml'));
    const interruptSeq = cassette.interactions.find((i) => JSON.stringify(i.request.body ?? '').includes('"interrupt"'))?.seq;
    expect(interruptSeq).toBeGreaterThan(0);
    const events = streamOf(cassette);
    const types = events.map((e) => e.event);
    const inProgress = types.indexOf('response.in_progress');
    const interrupted = types.indexOf('session.interrupted');
    expect(inProgress).toBeGreaterThan(-1);
    expect(interrupted).toBeGreaterThan(inProgress);
    expect(events[interrupted]?.after).toBe(interruptSeq);
    expect(events.slice(0, interrupted).every((e) => e.after < (interruptSeq as number))).toBe(true);
    // As the real codex-native turn (0.19.1): the route's session.interrupted, a delta in flight, codex's own naming
    // its turn (reference I20), the text written so far as an interrupted item, then idle.
    expect(types.slice(interrupted)).toEqual([
      'session.interrupted',
      'response.output_text.delta',
      'session.interrupted',
      'response.output_item.done',
      'session.status',
    ]);
    expect(String(events[interrupted + 2]?.data)).toContain('"response_id":"codex_');
    const item = JSON.parse(String(events[interrupted + 3]?.data)) as { item: { interrupted?: boolean; content: { text: string }[] } };
    expect(item.item.interrupted).toBe(true);
    expect(item.item.content[0]?.text).toMatch(/^Paragraph 1: .*Paragraph 2: .*$/s);
    expect(item.item.content[0]?.text).not.toContain('Paragraph 3');
  });

  it('interrupts a reference-trace harness before any output: no reply item at all', async () => {
    const { outDir } = await verdicts('claude-native', { probes: ['interrupt'] });
    const types = streamOf(await loadCassette(join(outDir, 'claude-native', 'interrupt.yaml'))).map((e) => e.event);
    expect(types.slice(types.indexOf('session.interrupted'))).toEqual(['session.interrupted', 'session.status']);
    expect(types).not.toContain('response.output_item.done');
  });

  it('sees response.policy_denied arrive after response.output_item.done on deny', async () => {
    const { outDir, table } = await verdicts('claude-native', { probes: ['policy_deny'] });
    expect(table.policy_deny).toBe('SUPPORTED');
    const types = streamOf(await loadCassette(join(outDir, 'claude-native', 'policy_deny.yaml'))).map((e) => e.event);
    expect(types.indexOf('response.policy_denied')).toBeGreaterThan(types.indexOf('response.output_item.done'));
  });

  it('reports DRIFT when the server does not deliver a declared capability', async () => {
    const { table, manifest } = await verdicts('claude-native', {
      probes: ['basic_turn', 'streaming'],
      simulator: { behaviour: { 'claude-native': { streaming: false } } },
    });
    expect(table).toEqual({ basic_turn: 'SUPPORTED', streaming: 'DRIFT' });
    expect(manifest.probes[1]).toMatchObject({ declared: 'SUPPORTED', observed: 'UNSUPPORTED', reason: 'no text deltas' });
  });

  it('skips policy probes with the reason when the native policy hook is disabled', async () => {
    const { table, manifest } = await verdicts('codex-native', {
      probes: ['basic_turn', 'policy_deny'],
      simulator: { policyHookDisabled: { 'codex-native': 'hook not installed' } },
    });
    expect(table).toEqual({ basic_turn: 'SUPPORTED', policy_deny: 'SKIPPED' });
    expect(manifest.probes[1]?.reason).toBe('native policy enforcement inactive (hook not installed)');
  });

  it('records the same cassettes but for timing when re-recorded with the same seed', async () => {
    const a = await verdicts('qwen-native', { simulator: { seed: 3 } });
    const b = await verdicts('qwen-native', { simulator: { seed: 3 } });
    expect(await folderWithoutTiming(join(b.outDir, 'qwen-native'))).toEqual(await folderWithoutTiming(join(a.outDir, 'qwen-native')));
    expect(b.manifest.probes).toEqual(a.manifest.probes);
  });

  it.each(['claude-native', 'codex-native', 'kiro-native', 'cursor-native', 'qwen-native'])(
    'the committed cassettes of %s are what the simulator records today (seed 1)',
    async (harness) => {
      const { outDir } = await verdicts(harness);
      const committed = join(import.meta.dirname, '..', '..', '..', 'cassettes', harness);
      expect(await folderWithoutTiming(join(outDir, harness))).toEqual(await folderWithoutTiming(committed));
      expect((await loadManifest(join(outDir, harness, 'manifest.yaml'))).probes).toEqual(
        (await loadManifest(join(committed, 'manifest.yaml'))).probes,
      );
    },
  );
});
