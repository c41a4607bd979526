import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBody, loadCassette } from '../../../src/cassette/index.js';
import { compareProfiles, DEFAULT_DRIFT_CONFIG, profileFolder } from '../../../src/drift/index.js';
import { REPLAY_ORIGIN } from '../../../src/families/kit/index.js';
import { findHarness } from '../../../src/families/omnigent/harnesses.js';
import { omnigentFamily, PROBES, REPLAY_TIMINGS, SessionDriver } from '../../../src/families/omnigent/index.js';
import { cassetteFetch, recordFamily } from '../../../src/probing/index.js';
import { tempDir } from './helpers.js';

// The real full server (0.19.1) publishes an elicitation before its runner parks on it, and the runner drops a
// verdict that comes in between: a driver that approves at once, through a fast proxy, can lose its approval.
describe('an approval the server lost', () => {
  it('is sent again once the turn shows no progress, and the recording replays with both', async () => {
    const outDir = await tempDir('approval-lost');
    const manifest = await recordFamily(omnigentFamily, {
      variant: 'claude-native',
      outDir,
      probes: ['policy_ask'],
      simulator: { seed: 5, extra: { parkAfterAskMs: 400 } },
    });
    expect(manifest.probes.map((p) => [p.probe, p.verdict])).toEqual([['policy_ask', 'SUPPORTED']]);

    const cassette = await loadCassette(join(outDir, 'claude-native', 'policy_ask.yaml'));
    const approvals = cassette.interactions.filter((i) => {
      const body = i.request.body ? new TextDecoder().decode(decodeBody(i.request.body)) : '';
      return i.request.method === 'POST' && body.includes('"approval"');
    });
    // The first came before the park and was lost; the second, after a quiet spell, was taken.
    expect(approvals).toHaveLength(2);

    const harness = findHarness('claude-native');
    if (!harness) throw new Error('no claude-native harness');
    const driver = new SessionDriver(REPLAY_ORIGIN, harness, REPLAY_TIMINGS, cassetteFetch([{ name: 'policy_ask.yaml', cassette }]));
    await driver.provision();
    const probe = PROBES.find((p) => p.name === 'policy_ask');
    const observed = await probe?.run(driver, 'SUPPORTED');
    expect(observed?.observed).toBe('SUPPORTED');
    expect(observed?.turn?.completed).toBe(true);
  });

  it('is no drift against a real server: the retry only adds an echo to the row of echoes', async () => {
    const record = async (parkAfterAskMs: number) => {
      const outDir = await tempDir('approval-drift');
      await recordFamily(omnigentFamily, {
        variant: 'claude-native',
        outDir,
        probes: ['policy_ask'],
        simulator: { seed: 5, extra: { parkAfterAskMs } },
      });
      return profileFolder(join(outDir, 'claude-native'), DEFAULT_DRIFT_CONFIG);
    };
    const [taken, retried] = [await record(0), await record(400)];
    const realServer = omnigentFamily.drift?.noise?.('openai-agents', { fromSimulator: false });
    expect(compareProfiles('claude-native', taken, retried, realServer)).toEqual([]);
    // Without that allowance the extra echo is a finding: the comparison above could fail.
    const strict = compareProfiles('claude-native', taken, retried, {
      ...realServer,
      unordered: realServer?.unordered ?? [],
      sometimes: realServer?.sometimes ?? [],
      runs: [],
    });
    expect(strict.map((f) => JSON.stringify(f)).join('\n')).toContain('response.elicitation_resolved');
  });
});
