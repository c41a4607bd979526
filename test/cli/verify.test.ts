import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBench } from '../helpers/cli.js';

describe('bench verify', () => {
  it('passes every committed cassette and says what it checked', async () => {
    const r = await runBench(['verify']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^checked 61 cassettes, 97 streams, \d+ events against 80 rules: no violations\n$/);
  });

  it('exits 1 and names the rule when a hand-edited cassette breaks one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-verify-'));
    const original = await readFile('cassettes/claude-native/policy_deny.yaml', 'utf8');
    // Swap the policy denial in front of everything else of its turn.
    const edited = original.replace(/event: "response\.in_progress"/, 'event: "response.policy_denied"');
    await writeFile(join(dir, 'policy_deny.yaml'), edited);
    const r = await runBench(['verify', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'omnigent/native-tui denied-after-call: response.policy_denied without an earlier response.output_item.done',
    );
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/violations$/);
  });

  it('refuses an unknown pack and format in one line', async () => {
    const p = await runBench(['verify', '--pack', 'nope']);
    expect(p.code).toBe(2);
    expect(p.stderr).toBe(
      'bench: unknown pack "nope"; built-in packs: omnigent/stream, omnigent/native-tui, omnigent/full-server, hermes/session-stream, hermes/runs, openai/responses, hermes/responses, openai/chat-completions, codex/app-server, opencode/events\n',
    );
    const f = await runBench(['verify', '--format', 'xml']);
    expect(f.code).toBe(2);
    expect(f.stderr).toBe('bench: --format "xml": use one of text, json, junit\n');
  });

  it('prints JSON violations as data', async () => {
    const r = await runBench(['verify', 'cassettes/kiro-native/basic_turn.yaml', '--format', 'json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { cassettes: { rules: unknown[] }[]; violations: unknown[] };
    expect(report.violations).toEqual([]);
    expect(report.cassettes[0]?.rules.length).toBe(17);
  });
});
