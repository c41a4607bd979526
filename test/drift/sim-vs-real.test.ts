import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DRIFT_CONFIG, type Finding, runDrift } from '../../src/drift/index.js';
import { loadManifest } from '../../src/manifest/index.js';

const CASSETTES = join(import.meta.dirname, '..', '..', 'cassettes');
const line = (f: Finding) => [f.scope, f.severity, f.heading, f.subject, f.message].join(' | ');

/** The pinned findings: every non-comment line of the pin file. */
async function pinned(): Promise<string[]> {
  const text = await readFile(join(import.meta.dirname, 'sim-vs-real.pinned.txt'), 'utf8');
  return text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
}

const compare = (suite: string) =>
  runDrift({
    baseline: join(CASSETTES, suite),
    candidate: join(CASSETTES, `${suite}-real`),
    config: DEFAULT_DRIFT_CONFIG,
    failOn: 'notable',
  });

describe('simulators against the real servers (bench drift --candidate)', () => {
  it.each([['opencode-serve'], ['codex-app-server']])(
    '%s: the real recording differs from the simulator only as the reference documents',
    async (suite) => {
      const report = await compare(suite);
      // Nothing breaking or reordered: same orderings, statuses, contracts and verdicts.
      expect(report.findings.filter((f) => f.severity === 'breaking')).toEqual([]);
      expect(new Set(report.findings.map((f) => f.heading))).toEqual(
        new Set(suite === 'codex-app-server' ? ['vocabulary', 'payload shape'] : []),
      );
      // Only additions: event types that appeared, fields that were added.
      for (const f of report.findings) expect(f.message).toMatch(/^(event type \S+ appeared|field \S+ added)$/);
      expect(report.findings.map(line).sort()).toEqual((await pinned()).filter((l) => l.startsWith(`${suite} |`)).sort());
    },
  );

  it.each([
    ['hermes', 'the real 0.19.0 gateway differs from the simulator of the newer build only as the pin file explains'],
    ['codex-native', "the real omnigent server's native path differs from the simulator only as the pin file explains"],
  ])('%s: %s', async (suite) => {
    const report = await compare(suite);
    expect(report.findings.map(line).sort()).toEqual((await pinned()).filter((l) => l.startsWith(`${suite} |`)).sort());
    // Every verdict that moved is a probe the real server does not earn, and none moved the other way.
    const real = await loadManifest(join(CASSETTES, `${suite}-real`, 'manifest.yaml'));
    const notEarned = real.probes.filter((p) => p.verdict !== 'SUPPORTED').map((p) => p.probe);
    expect(report.findings.filter((f) => f.heading === 'verdict').map((f) => f.subject)).toEqual(notEarned);
    // Where both send the same events, they send them in the same order.
    expect(report.findings.filter((f) => f.heading === 'ordering')).toEqual([]);
  });
});
