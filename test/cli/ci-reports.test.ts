import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBench } from '../helpers/cli.js';

/** What a real XML parser (Python's ElementTree, not ours) reads in a JUnit file. */
function parseJunit(file: string): { tests: number; failures: number; cases: { suite: string; name: string; failed: boolean }[] } {
  const script = [
    'import json, sys, xml.etree.ElementTree as E',
    'root = E.parse(sys.argv[1]).getroot()',
    'assert root.tag == "testsuites", root.tag',
    'cases = [{"suite": s.get("name"), "name": c.get("name"), "failed": c.find("failure") is not None}',
    '         for s in root.findall("testsuite") for c in s.findall("testcase")]',
    'for s in root.findall("testsuite"):',
    '    assert int(s.get("tests")) == len(s.findall("testcase"))',
    '    assert int(s.get("failures")) == len(s.findall("testcase/failure"))',
    'print(json.dumps({"tests": int(root.get("tests")), "failures": int(root.get("failures")), "cases": cases}))',
  ].join('\n');
  return JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' }));
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tapedeck-ci-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('--shard i/n splits the work of a CI matrix', () => {
  it('replay-check 1/3, 2/3 and 3/3 together check exactly what replay-check checks, none twice', async () => {
    const whole = await runBench(['replay-check', 'cassettes', '--format', 'json']);
    expect(whole.code).toBe(0);
    const all = (JSON.parse(whole.stdout) as { file: string }[]).map((r) => r.file);
    expect(all.length).toBeGreaterThan(50);
    const shards = await Promise.all(
      [1, 2, 3].map((i) => runBench(['replay-check', 'cassettes', '--shard', `${i}/3`, '--format', 'json'])),
    );
    const parts = shards.map((r) => {
      expect(r.code).toBe(0);
      return (JSON.parse(r.stdout) as { file: string }[]).map((row) => row.file);
    });
    expect(parts.flat().sort()).toEqual([...all].sort());
    expect(new Set(parts.flat()).size).toBe(all.length);
    // Dealt out in turn: no job gets more than one cassette more than another.
    const sizes = parts.map((p) => p.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  });

  it('verify shards cover the cassettes once, and the same shard is the same on every run', async () => {
    const count = async (shard?: string) => {
      const r = await runBench(['verify', 'cassettes', '--format', 'json', ...(shard ? ['--shard', shard] : [])]);
      expect(r.code).toBe(0);
      return (JSON.parse(r.stdout) as { cassettes: { cassette: string }[] }).cassettes.map((c) => c.cassette);
    };
    const all = await count();
    const halves = [await count('1/2'), await count('2/2')];
    expect(halves.flat().sort()).toEqual([...all].sort());
    expect(await count('2/2')).toEqual(halves[1]);
  });

  it('a shard that is not i/n with 1 <= i <= n is refused in one line', async () => {
    for (const bad of ['0/3', '4/3', '2', 'a/b']) {
      const r = await runBench(['replay-check', '--shard', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^bench: --shard .*: give i\/n with 1 <= i <= n/);
    }
  });
});

describe('every checking command writes JUnit a real parser reads, and a job summary', () => {
  it('verify, replay-check, drift, fuzz and scan, clean: one testcase per thing checked, the Markdown appended to $GITHUB_STEP_SUMMARY', async () => {
    const summary = join(dir, 'summary.md');
    const env = { GITHUB_STEP_SUMMARY: summary };
    const runs: [string, string[], number][] = [
      ['verify', ['verify', 'cassettes/kiro-native'], 0],
      ['replay-check', ['replay-check', 'cassettes/kiro-native'], 0],
      ['drift', ['drift', '--baseline', 'cassettes/kiro-native', '--candidate', 'cassettes/kiro-native'], 0],
      ['fuzz', ['fuzz', '--cassettes', 'cassettes/kiro-native', '--runs', '2', '--seed', '1'], 0],
      ['scan', ['scan', 'cassettes/kiro-native'], 0],
    ];
    for (const [name, args, code] of runs) {
      const file = join(dir, `${name}.xml`);
      const r = await runBench([...args, '--junit', file], { env });
      expect(r.code, `${name}: ${r.stderr}`).toBe(code);
      const junit = parseJunit(file);
      expect(junit.failures, name).toBe(0);
      expect(junit.tests, name).toBeGreaterThan(0);
      expect(junit.cases).toHaveLength(junit.tests);
    }
    // One testcase per probe for the probe-running commands, one per file for scan.
    expect(parseJunit(join(dir, 'replay-check.xml')).cases.map((c) => c.name)).toContain('policy_deny');
    expect(parseJunit(join(dir, 'fuzz.xml')).tests).toBe(parseJunit(join(dir, 'replay-check.xml')).tests);
    expect(parseJunit(join(dir, 'scan.xml')).cases.map((c) => c.name)).toContain('manifest.yaml');
    const md = await readFile(summary, 'utf8');
    for (const title of ['tapedeck verify', 'tapedeck replay-check', 'tapedeck drift', 'tapedeck fuzz', 'tapedeck scan'])
      expect(md).toContain(`## ${title}`);
  });

  it('failures are failures: a planted secret and a broken contract each fail their testcase, control bytes and all', async () => {
    const folder = join(dir, 'broken');
    await cp('cassettes/kiro-native', folder, { recursive: true });
    const token = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`;
    await writeFile(join(folder, 'notes.txt'), `a note with a token ${token} and a bell \u0007 and a NUL-free escape \u001b[31m\n`);
    const scan = await runBench(['scan', folder, '--junit', join(dir, 'scan-bad.xml')]);
    expect(scan.code).toBe(1);
    const scanned = parseJunit(join(dir, 'scan-bad.xml'));
    expect(scanned.cases.filter((c) => c.failed).map((c) => c.name)).toEqual(['notes.txt']);
    // A team rule the recordings break: nothing may follow the resource's creation.
    const pack = join(dir, 'quiet.yaml');
    await writeFile(
      pack,
      "name: team/quiet\nrules:\n  - kind: never\n    name: quiet\n    event: '*'\n    after: session.resource.created\n",
    );
    const verify = await runBench(['verify', folder, '--pack', pack, '--format', 'junit']);
    await writeFile(join(dir, 'verify-bad.xml'), verify.stdout);
    const verified = parseJunit(join(dir, 'verify-bad.xml'));
    expect(verify.code).toBe(1);
    expect(verified.failures).toBeGreaterThan(0);
  });

  it('a --junit file that cannot be written is refused before any work', async () => {
    const r = await runBench(['replay-check', 'cassettes', '--junit', join(dir, 'no', 'such', 'r.xml')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bench: --junit .*: the folder .* does not exist/);
    expect(r.stdout).toBe('');
  });
});

describe('--json for programs', () => {
  it('inspect --json and scan --format json say what the text says', async () => {
    const r = await runBench(['inspect', 'cassettes/kiro-native/streaming.yaml', '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { meta: { target: string }; interactions: { kind: string; events?: number }[] };
    expect(doc.interactions.some((i) => i.kind === 'sse' && (i.events ?? 0) > 0)).toBe(true);
    const s = await runBench(['scan', 'cassettes/kiro-native', '--json']);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({ findings: [], files: expect.any(Number) });
  });
});
