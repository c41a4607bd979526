import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../src/cassette/index.js';
import { runBench } from '../helpers/cli.js';

const CASSETTES = join(import.meta.dirname, '..', '..', 'cassettes');
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('bench fuzz', () => {
  // The CI budget: 164 probes x 15 variations, about 27 s on this 2-core machine.
  it('the bench driver keeps every recorded verdict under legal variations of the committed cassettes', async () => {
    const r = await runBench(['fuzz', '--cassettes', CASSETTES, '--runs', '15', '--seed', '20261130']);
    // Nothing on stderr but a progress line every 10 s, with the time left.
    for (const line of r.stderr.split('\n').filter(Boolean)) expect(line).toMatch(/^bench fuzz: \[\d+\/164, about [\d a-z]+ left\]$/);
    expect(r.stdout).toContain('seed 20261130');
    expect(r.stdout.match(/^ok {3}/gm)?.length).toBe(164);
    expect(r.stdout).toMatch(/164 probes, 2460 variations in [\d.]+ s: every verdict held/);
    expect(r.code).toBe(0);
  }, 120_000);

  // Seed 7 once dropped `output` from the real full server's function_call_output item, where it writes its policy
  // denial: the pack now says an output item carries what its type means, so that variation is never tried.
  it("keeps the real omnigent server's policy_deny verdict at seed 7: a tool's output is never dropped", async () => {
    const r = await runBench(['fuzz', '--cassettes', join(CASSETTES, 'openai-agents-real'), '--runs', '50', '--seed', '7']);
    expect(r.stdout).toContain('ok   openai-agents policy_deny: 50 legal variations, verdict SUPPORTED held');
    expect(r.code).toBe(0);
  }, 60_000);

  it('exits 1 and saves a shrunk counterexample when a legal variation changes a verdict', async () => {
    const out = await mkdtemp(join(tmpdir(), 'tapedeck-fuzz-cli-'));
    dirs.push(out);
    // With --vary-observed the fuzzer may drop every text delta (a short reply sent whole, which the
    // contract allows); the streaming verdict rests on deltas, so it changes.
    const r = await runBench([
      'fuzz',
      '--cassettes',
      join(CASSETTES, 'claude-native'),
      '--runs',
      '100',
      '--seed',
      '5',
      '--vary-observed',
      '--save-counterexample',
      out,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL claude-native streaming: verdict DRIFT instead of SUPPORTED/);
    expect(r.stdout).toContain('deleted all 21 response.output_text.delta');
    expect(r.stdout).toMatch(/reproduce: seed 5, path "[\d:]+"/);
    expect(r.stdout).toMatch(/8 probes, \d+ variations in [\d.]+ s: 1 broke/);
    expect(await readdir(out)).toEqual(['claude-native.streaming.yaml']);
    const saved = await loadCassette(join(out, 'claude-native.streaming.yaml'));
    expect(saved.meta.labels?.['fuzz-seed']).toBe('5');
    const deltas = saved.interactions
      .flatMap((i) => i.response?.stream?.events ?? [])
      .filter((e) => e.event === 'response.output_text.delta');
    expect(deltas).toEqual([]);
  }, 120_000);

  it('rejects a bad --runs, --seed or --pack in one line with exit 2', async () => {
    for (const args of [
      ['--runs', '0'],
      ['--seed', 'x'],
      ['--pack', 'nope/pack'],
    ]) {
      const r = await runBench(['fuzz', '--cassettes', CASSETTES, ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^bench: /);
    }
    const missing = await runBench(['fuzz', '--cassettes', join(CASSETTES, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such folder');
  });
});
