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

// A live server on a throwaway port: --server-name is what the manifest and every cassette call it, so recording the
// same server again on another port rewrites nothing but what changed.
it('bench record --server --server-name names the server, not its URL, and --server-name alone is refused', async () => {
  const { startMcpSimulator } = await import('../../../src/families/mcp/simulator/server.js');
  const sim = await startMcpSimulator({ port: 0 });
  const out = await mkdtemp(join(tmpdir(), 'tapedeck-mcp-named-'));
  try {
    const r = await runBench([
      'record',
      '--target',
      'mcp',
      '--server',
      `${sim.url}/mcp`,
      '--server-name',
      'my-mcp 1.0',
      '--probes',
      'initialize',
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect((await loadManifest(join(out, 'mcp', 'manifest.yaml'))).target).toBe('my-mcp 1.0');
    const { readFile } = await import('node:fs/promises');
    const cassette = await readFile(join(out, 'mcp', 'initialize.yaml'), 'utf8');
    expect(cassette).toContain('target: "my-mcp 1.0"');
    expect(cassette).not.toContain(new URL(sim.url).port);
    const alone = await runBench(['record', '--target', 'mcp', '--server-name', 'x', '--out', out]);
    expect(alone.code).toBe(2);
    expect(alone.stderr.trim()).toBe('bench: --server-name names the server --server records; give --server too');
  } finally {
    await sim.close();
    await rm(out, { recursive: true, force: true });
  }
});
