import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../families/omnigent/helpers.js';
import { BENCH_BIN, benchUnderWrapper, runBench } from '../helpers/cli.js';
import { startServer } from '../helpers/servers.js';

/** Every file of a folder and its bytes. */
async function filesOf(dir: string): Promise<Record<string, string>> {
  const names = (await readdir(dir)).sort();
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await readFile(join(dir, n), 'utf8')] as const)));
}

describe('bench record', () => {
  it('shows progress per probe and ends with the verdict table', async () => {
    const out = await tempDir('cli-record');
    const r = await runBench(['record', '--harness', 'kiro-native', '--probes', 'basic_turn,streaming', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^ {2}basic_turn \.\.\. ✓ SUPPORTED \(\d+\.\d s\)\n {2}streaming \.\.\. — NOT_APPLICABLE \(\d+\.\d s\)\n$/);
    expect(r.stdout.replace(out, 'OUT')).toMatchInlineSnapshot(`
      "kiro-native against embedded omnigent simulator (seed 1): cassettes in OUT/kiro-native/

      probe       prio  declared        verdict           reason
      basic_turn  P0    SUPPORTED       ✓ SUPPORTED       reply echoed KIRO_NATIVE_OK
      streaming   P0    NOT_APPLICABLE  — NOT_APPLICABLE  kiro-native declares streaming=false; no text deltas, as declared
      "
    `);
  });

  it('leaves every file as it was when the server did not change: the README main job keeps the tree clean', async () => {
    const out = await tempDir('cli-record-again');
    await cp('cassettes/kiro-native', join(out, 'kiro-native'), { recursive: true });
    const before = await filesOf(join(out, 'kiro-native'));
    const r = await runBench(['record', '--harness', 'kiro-native', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`cassettes in ${out}/kiro-native/ (9 unchanged but for timings, left as they were)`);
    expect(await filesOf(join(out, 'kiro-native'))).toEqual(before);
    expect(await readdir(out)).toEqual(['kiro-native']);
    // Another seed is another recording: every cassette is rewritten.
    const other = await runBench(['record', '--harness', 'kiro-native', '--out', out, '--seed', '2']);
    expect(other.code).toBe(0);
    expect(other.stdout).not.toContain('unchanged');
    const after = await filesOf(join(out, 'kiro-native'));
    expect(Object.keys(after)).toEqual(Object.keys(before));
    for (const name of Object.keys(before)) expect(after[name], name).not.toBe(before[name]);
  });

  it('stopped mid-run, leaves the folder as it was: no cassette of the new run beside the old manifest', async () => {
    const out = await tempDir('cli-record-stop');
    await cp('cassettes/claude-native', join(out, 'claude-native'), { recursive: true });
    const before = await filesOf(join(out, 'claude-native'));
    // The interrupt probe holds its turn open for seconds: a stop lands while the run is still going.
    const child = spawn(process.execPath, [BENCH_BIN, 'record', '--harness', 'claude-native', '--out', out, '--seed', '3'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    await new Promise<void>((resolve) =>
      child.stderr.on('data', (d) => {
        stderr += d;
        if (stderr.includes('  interrupt ... ')) resolve();
      }),
    );
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(130);
    expect(stderr).toContain('bench: stopped by SIGTERM before the recording ended; the folder is as it was');
    expect(await filesOf(join(out, 'claude-native'))).toEqual(before);
    // What finished before the stop is kept beside it, and said: nothing recorded is lost.
    const kept = (await readdir(out)).filter((n) => n.startsWith('.claude-native.recording-'));
    expect(kept).toHaveLength(1);
    expect(await readdir(join(out, kept[0] as string))).toContain('basic_turn.yaml');
    expect(stderr).toMatch(
      /bench record: what was recorded before the stop is kept in .*\.claude-native\.recording-\d+\/ \(basic_turn\.yaml, /,
    );
  });

  it('stopped by the PID of the wrapper that started it (sh -c, as npx does): it stops too, and leaves nothing', async () => {
    const out = await tempDir('cli-record-wrapper');
    const bench = benchUnderWrapper(['record', '--harness', 'claude-native', '--out', out, '--seed', '3']);
    await bench.waitFor(/ {2}streaming \.\.\. /);
    process.kill(bench.wrapperPid, 'SIGTERM');
    await bench.ended;
    const stderr = bench.stderr();
    expect(stderr).toContain('bench: stopped by the process that started it (npx, a shell) exiting');
    expect(stderr).not.toContain('  interrupt ... ');
    // The folder this run made is gone (nothing was moved in); the probe that finished is kept, and said.
    expect(stderr).toContain('bench record: what was recorded before the stop is kept in');
    const left = await readdir(out);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^\.claude-native\.recording-\d+$/);
    // The finished probe's cassette, and the journal of the one under way (bench recover saves it).
    const kept = (await readdir(join(out, left[0] as string))).filter((n) => !n.endsWith('.tmp'));
    expect(kept[0]).toBe('basic_turn.yaml');
    expect(kept.slice(1).every((n) => n === 'streaming.yaml.journal')).toBe(true);
  });

  it('records the hermes gateway probes with --target hermes, and refuses mixed-up flags in one line', async () => {
    const out = await tempDir('cli-record');
    const r = await runBench(['record', '--target', 'hermes', '--probes', 'idempotent_retry,tool_failed', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^hermes against embedded hermes gateway simulator \(seed 1\): cassettes in .+\/hermes\//);
    expect(r.stdout).toMatch(/idempotent_retry +P0 +SUPPORTED +✓ SUPPORTED/);
    expect(r.stdout).toMatch(/tool_failed +P0 +SUPPORTED +✓ SUPPORTED/);
    // --folder puts a suite's recording beside another, with the manifest named for it.
    const beside = await runBench(['record', '--target', 'hermes', '--probes', 'tool_failed', '--folder', 'hermes-b', '--out', out]);
    expect(beside.stdout).toMatch(/^hermes-b against .*: cassettes in .+\/hermes-b\//);
    expect((await readdir(join(out, 'hermes-b'))).sort()).toEqual(['manifest.yaml', 'tool_failed.yaml']);
    for (const [args, says] of [
      [['--target', 'hermes', '--harness', 'kiro-native'], 'target records its own probes without one'],
      [['--target', 'nope'], '--target "nope"'],
      [[], '--harness is required'],
      [['--target', 'hermes', '--server', 'http://127.0.0.1:9'], '--server needs --api-key'],
      [['--target', 'hermes', '--probes', 'basic_turn'], 'unknown hermes probe "basic_turn"'],
      [['--target', 'hermes', '--folder', '../elsewhere'], '--folder "../elsewhere": give a plain folder name'],
      [
        ['--harness', 'kiro-native', '--folder', 'k2'],
        '--folder is for targets without variants; --target omnigent records into its --harness folder',
      ],
    ] as const) {
      const bad = await runBench(['record', ...args, '--out', out], { env: { HERMES_API_KEY: '' } });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(says);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('prints the manifest as JSON with --json', async () => {
    const out = await tempDir('cli-record');
    const r = await runBench(['record', '--harness', 'cursor-native', '--probes', 'basic_turn', '--out', out, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).probes[0]).toMatchObject({ probe: 'basic_turn', verdict: 'SUPPORTED', cassette: 'basic_turn.yaml' });
  });

  it('lists the known harnesses for an unknown one, and refuses ids that would leave the output folder', async () => {
    for (const id of ['nope', '../x']) {
      const r = await runBench(['record', '--harness', id]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `bench: unknown harness ${JSON.stringify(id)}; bench record drives the native-tui harnesses and, on omnigent's full server, openai-agents: claude-native, codex-native, pi-native, cursor-native, kiro-native, antigravity-native, goose-native, qwen-native, kimi-native, hermes-native, openai-agents\n`,
      );
    }
  });

  it('says in one line that a server is unreachable', async () => {
    const gone = await startServer(() => {});
    const url = gone.url;
    await gone.close();
    const r = await runBench(['record', '--harness', 'kiro-native', '--server', url]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `bench: cannot reach ${url} (ECONNREFUSED); is the server running? Omit --server to record the embedded simulator\n`,
    );
  });

  it('explains itself in --help with an example', async () => {
    const r = await runBench(['record', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('$ bench record --harness kiro-native');
    expect(r.stdout).toContain('--server <url>');
  });
});
