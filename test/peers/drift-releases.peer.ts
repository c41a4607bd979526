import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBench } from '../helpers/cli.js';

const HERE = import.meta.dirname;
const ROOT = join(HERE, '..', '..');
const RELEASES = join(ROOT, 'test', 'drift', 'releases');
/** Where scripts/install-python-peers.sh puts each release's entry point (from test/peers/python/<name>.lock). */
const entry = (venv: string, bin: string) => join(HERE, 'python', venv, '.venv', 'bin', bin);
/** omnigent's host daemon finds codex as omnigent documents it; the pinned binary from test/peers. */
const CODEX = join(HERE, 'node_modules', '@openai', 'codex-linux-x64', 'vendor', 'x86_64-unknown-linux-musl', 'bin', 'codex');

interface Release {
  /** The expected report: test/drift/releases/<pair>.expected.txt. */
  pair: string;
  target: 'omnigent' | 'hermes';
  binary: string;
  /** The committed folders of the pinned release, each re-recorded from this one. */
  harnesses: string[];
}

const PAIRS: Release[] = [
  {
    pair: 'omnigent-0.19.0-vs-0.19.1',
    target: 'omnigent',
    binary: entry('omnigent-0.19.0', 'omnigent'),
    harnesses: ['openai-agents-real', 'codex-native-real'],
  },
  {
    pair: 'omnigent-0.18.0-vs-0.19.1',
    target: 'omnigent',
    binary: entry('omnigent-0.18.0', 'omnigent'),
    harnesses: ['openai-agents-real', 'codex-native-real'],
  },
  { pair: 'hermes-0.18.2-vs-0.19.0', target: 'hermes', binary: entry('hermes-0.18.2', 'hermes'), harnesses: ['hermes-real'] },
];

/** What the expected report says: its lines but the `#` traces and blank ones. */
async function expectedLines(pair: string): Promise<string[]> {
  const text = await readFile(join(RELEASES, `${pair}.expected.txt`), 'utf8');
  return text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
}

interface JsonReport {
  compared: { scope: string; probes: string[] }[];
  findings: { scope: string; severity: string; subject: string; message: string }[];
}

/**
 * `npx bench drift --peer` of one older release against a committed folder, as a user runs it, every severity
 * reported; the report as the expected file writes it: what was compared, then each finding.
 */
async function driftOf(release: Release, harness: string): Promise<string[]> {
  const result = await runBench(
    [
      'drift',
      '--baseline',
      join(ROOT, 'cassettes'),
      '--harness',
      harness,
      '--target',
      release.target,
      '--peer',
      release.binary,
      '--fail-on',
      'info',
      '--json',
    ],
    { env: { OMNIGENT_CODEX_PATH: CODEX } },
  );
  // 0 for nothing moved, 1 for findings; anything else is a failure to compare, with its reason on stderr.
  expect([0, 1], result.stderr).toContain(result.code);
  const report = JSON.parse(result.stdout) as JsonReport;
  return [
    ...report.compared.map((c) => `compared ${c.scope}: ${c.probes.length} probes`),
    ...report.findings.map((f) => `${f.scope} [${f.severity}] ${f.subject}: ${f.message}`),
  ];
}

describe.each(PAIRS)('bench drift between real releases: $pair', (release) => {
  it('reports exactly what the expected report traces to the two releases’ source, and nothing else', async () => {
    const lines: string[] = [];
    for (const harness of release.harnesses) lines.push(...(await driftOf(release, harness)));
    expect(lines).toEqual(await expectedLines(release.pair));
  }, 600_000);
});
