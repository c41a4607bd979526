import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCH_BIN, runBench } from '../helpers/cli.js';
import { startServer } from '../helpers/servers.js';

/** Every user mistake: one line on stderr naming it, exit 2, and no stack trace. */
function expectOneLine(r: { code: number | null; stderr: string; stdout: string }, message: RegExp) {
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('mistakes found before any probe runs', () => {
  it('a --server that is not omnigent, an --out that is a file, a --candidate with no cassette: one line each, nothing written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-early-'));
    const other = await startServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no such route');
    });
    try {
      const out = join(dir, 'out');
      const started = performance.now();
      const wrong = await runBench(['record', '--harness', 'kiro-native', '--server', other.url, '--out', out]);
      expectOneLine(wrong, /answered GET \/health with 404: it is not an omnigent server/);
      // Said at once, not after eight probes' timeouts.
      expect(performance.now() - started).toBeLessThan(15_000);
      expect(await readdir(dir)).toEqual([]);
      const file = join(dir, 'a-file');
      await writeFile(file, 'x');
      expectOneLine(await runBench(['record', '--harness', 'kiro-native', '--out', file]), /--out .*a-file is a file; give a folder/);
      await mkdir(join(dir, 'empty'));
      expectOneLine(
        await runBench(['drift', '--baseline', 'cassettes/kiro-native', '--candidate', join(dir, 'empty')]),
        /--candidate: .*empty holds no cassette/,
      );
    } finally {
      await other.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a --server of the wrong kind, or none, for every family', () => {
  it('opencode and hermes ask their health route, codex its port: exit 2 in seconds, nothing recorded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-early-'));
    const other = await startServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no such route');
    });
    // A port that was free a moment ago: nothing listens there.
    const gone = await startServer((_req, res) => {
      res.end();
    });
    await gone.close();
    try {
      const out = join(dir, 'out');
      const cases: [string[], RegExp][] = [
        [['--target', 'opencode', '--server', other.url], /answered GET \/global\/health with 404: it is not opencode serve/],
        [['--target', 'hermes', '--api-key', 'k', '--server', other.url], /answered GET \/health with 404: it is not a Hermes gateway/],
        [['--target', 'opencode', '--server', gone.url], /cannot reach .* \(ECONNREFUSED\); is the server running\?/],
        [['--target', 'codex', '--server', gone.url.replace(/^http/, 'ws')], /cannot reach ws:.* \(ECONNREFUSED\)/],
      ];
      for (const [args, message] of cases) {
        const started = performance.now();
        expectOneLine(await runBench(['record', ...args, '--out', out]), message);
        expect(performance.now() - started).toBeLessThan(15_000);
      }
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await other.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('bad input on the command line', () => {
  it('an unknown flag', async () => {
    expectOneLine(await runBench(['verify', '--colour']), /^bench: unknown option '--colour'/);
  });

  it('an unknown command, with a suggestion', async () => {
    expectOneLine(await runBench(['replai']), /^bench: unknown command 'replai'/);
  });

  it('a port that is not a port', async () => {
    expectOneLine(await runBench(['sim', '--port', '-1']), /^bench: --port "-1" is not a port/);
  });

  it('a missing file and a missing folder', async () => {
    expectOneLine(await runBench(['verify', 'no/such/dir']), /^bench: no\/such\/dir: no such file or folder\n$/);
    expectOneLine(await runBench(['scan', 'missing.yaml']), /^bench: missing\.yaml: no such file or folder\n$/);
  });

  it('an unreadable folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-locked-'));
    await writeFile(join(dir, 'c.yaml'), 'version: 1\n');
    await chmod(dir, 0o000);
    try {
      // Root reads any folder; only check the message when the folder really is unreadable.
      const r = await runBench(['verify', dir]);
      if (process.getuid?.() !== 0) expectOneLine(r, /^bench: /);
      else expect(r.code).toBe(2);
    } finally {
      await chmod(dir, 0o755);
    }
  });

  it('a --peer that cannot be run, or used where it means nothing, and no folder is left', async () => {
    const out = await mkdtemp(join(tmpdir(), 'tapedeck-peer-out-'));
    expectOneLine(
      await runBench(['record', '--target', 'codex', '--peer', '/no/such/codex', '--out', out]),
      /^bench: \/no\/such\/codex --version failed \(.*\); give the path of the codex binary\n$/,
    );
    expect(await readdir(out)).toEqual([]);
    await rm(out, { recursive: true });
    // Every family has a real server now; a Python one is named by its environment's entry point.
    expectOneLine(
      await runBench(['record', '--target', 'hermes', '--peer', '/no/such/venv/bin/hermes', '--out', out]),
      /^bench: \/no\/such\/venv\/bin\/hermes --version failed \(.*\); give the path of the hermes binary\n$/,
    );
    expectOneLine(
      await runBench(['record', '--target', 'opencode', '--peer', 'opencode', '--server', 'http://127.0.0.1:1']),
      /^bench: --peer starts the server itself; give --peer or --server, not both/,
    );
  });

  it('a config file that is not JSON, and one with a wrong field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-config-'));
    await writeFile(join(dir, 'bad.json'), '{ "redact": ');
    await writeFile(join(dir, 'wrong.json'), JSON.stringify({ redact: { headers: 'authorization' } }));
    await writeFile(join(dir, 'regex.json'), JSON.stringify({ redact: { patterns: ['(unclosed'] } }));
    expectOneLine(await runBench(['scan', 'cassettes', '--config', join(dir, 'bad.json')]), /^bench: config .*bad\.json: not valid JSON/);
    expectOneLine(
      await runBench(['scan', 'cassettes', '--config', join(dir, 'wrong.json')]),
      /^bench: config .*wrong\.json redact\.headers: /,
    );
    expectOneLine(
      await runBench(['scan', 'cassettes', '--config', join(dir, 'regex.json')]),
      /redact\.patterns: "\(unclosed" is not a regular expression/,
    );
    expectOneLine(
      await runBench(['drift', '--baseline', 'cassettes', '--candidate', 'cassettes', '--config', join(dir, 'missing.json')]),
      /^bench: config .*missing\.json: cannot be read/,
    );
  });

  it('a config that would fail open: not an object, a null section, a misspelt section or field, a pattern that matches everywhere', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-config-open-'));
    const cases: [unknown, RegExp][] = [
      [null, /expected a JSON object with sections such as "redact" and "drift", got null/],
      [[1], /expected a JSON object .*got \[1\]/],
      [{ redact: null }, /redact: expected an object, got null; leave the section out for the defaults/],
      [{ redact: [1] }, /redact: expected an object, got \[1\]/],
      [{ redact: { patterns: [''] } }, /redact\.patterns: "" matches the empty string/],
      [{ redact: { patterns: ['a|'] } }, /redact\.patterns: "a\|" matches the empty string/],
      [{ redact: { patterns: ['(?:)'] } }, /redact\.patterns: "\(\?:\)" matches the empty string/],
      // A misspelt section would leave every rule at its default without a word.
      [{ redcat: { headers: ['x-tenant-signature'] } }, /unknown section "redcat"; the sections are "redact", "drift", "match"/],
      [{ redact: { header: ['x-tenant-signature'] } }, /redact\.: Unrecognized key: "header"/],
      [{ redact: { exempt: ['Authorization'] } }, /redact\.exempt: "Authorization" is always redacted and cannot be exempted/],
    ];
    for (const [n, [config, message]] of cases.entries()) {
      const file = join(dir, `c${n}.json`);
      await writeFile(file, JSON.stringify(config));
      expectOneLine(await runBench(['scan', 'cassettes', '--config', file]), message);
    }
  });

  it('finds tapedeck.config.json in a parent folder when run from a subfolder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-config-up-'));
    await writeFile(join(dir, 'tapedeck.config.json'), JSON.stringify({ redact: { patterns: ['ORD-\\d{8}'] } }));
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'sub', 'deeper'), { recursive: true });
    await writeFile(join(dir, 'sub', 'deeper', 'notes.txt'), 'order ORD-12345678 shipped\n');
    const r = await runBench(['scan', '.'], { cwd: join(dir, 'sub', 'deeper') });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('notes.txt:1: pattern-1');
  });

  it('a reader that closes the pipe early (`| head`, `| true`) stops bench quietly: no EPIPE trace', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-pipe-'));
    try {
      // `true` exits without reading: every write bench makes after its start-up meets a closed pipe.
      const err = join(dir, 'stderr');
      const shell = spawn('sh', ['-c', `"${process.execPath}" "${BENCH_BIN}" record --help 2>"${err}" | true`], { stdio: 'ignore' });
      const [code] = (await once(shell, 'close')) as [number];
      expect(code).toBe(0);
      expect(await readFile(err, 'utf8')).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  it('every command has --help with an example', async () => {
    for (const command of ['record', 'replay', 'replay-check', 'verify', 'drift', 'fuzz', 'proxy', 'inspect', 'scan', 'sim', 'recover']) {
      const r = await runBench([command, '--help']);
      expect(r.code, command).toBe(0);
      expect(r.stdout, command).toMatch(/Example/);
    }
  });
});
