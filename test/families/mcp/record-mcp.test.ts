import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadManifest } from '../../../src/manifest/index.js';
import { runBench } from '../../helpers/cli.js';

// The MCP family as a user runs it: `bench record --target mcp` on the embedded simulator gives a verdict for every
// probe, the recordings verify clean against mcp/streamable-http, and each probe's client replays its verdict.
it('records every MCP probe on the simulator, verifies the session pack clean, and replays every verdict', async () => {
  const out = await mkdtemp(join(tmpdir(), 'tapedeck-mcp-'));
  try {
    const recorded = await runBench(['record', '--target', 'mcp', '--out', out]);
    expect(recorded.code, recorded.stderr).toBe(0);
    const manifest = await loadManifest(join(out, 'mcp', 'manifest.yaml'));
    expect(manifest.probes.map((p) => [p.probe, p.verdict])).toEqual(
      [
        'initialize',
        'tools_list',
        'tool_call',
        'tool_error',
        'progress',
        'cancel',
        'resources',
        'prompts',
        'logging',
        'completion',
        'session',
        'bad_session',
      ].map((p) => [p, 'SUPPORTED']),
    );
    expect((await readdir(join(out, 'mcp'))).filter((f) => f.endsWith('.yaml'))).toHaveLength(13);
    const verified = await runBench(['verify', join(out, 'mcp')]);
    expect(verified.code, verified.stdout).toBe(0);
    expect(verified.stdout).toMatch(/checked 12 cassettes, .* against 17 rules: no violations/);
    const replayed = await runBench(['replay-check', out]);
    expect(replayed.code, replayed.stdout).toBe(0);
    expect(replayed.stdout.trim().split('\n').at(-1)).toBe('12 passed, 0 failed');
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}, 180_000);
