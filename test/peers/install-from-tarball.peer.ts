import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..', '..');
let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Installed as another project installs it: the packed tarball, its dependencies from the npm registry (cache first).
it('another project installs the packed package, runs npx bench and imports its entry points', async () => {
  dir = await mkdtemp(join(tmpdir(), 'tapedeck-install-'));
  const { version, name } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string; name: string };
  expect(name).toBe('tapedeck-bench');
  await run('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: ROOT });
  const project = join(dir, 'project');
  await mkdir(project);
  await writeFile(join(project, 'package.json'), '{ "name": "user-project", "private": true, "type": "module" }\n');
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-dev', join(dir, `${name}-${version}.tgz`)], {
    cwd: project,
    timeout: 240_000,
  });
  const bench = (args: string[]) => run('npx', ['--no-install', 'bench', ...args], { cwd: project, timeout: 120_000 });
  expect((await bench(['--version'])).stdout.trim()).toBe(version);
  const recorded = await bench(['record', '--harness', 'kiro-native', '--out', 'cassettes']);
  expect(recorded.stdout).toContain('kiro-native against embedded omnigent simulator');
  expect((await bench(['verify', 'cassettes'])).stdout).toMatch(/no violations/);
  expect((await bench(['replay-check', 'cassettes'])).stdout).toMatch(/8 passed, 0 failed/);
  const imported = await run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "for (const entry of ['tapedeck-bench', 'tapedeck-bench/cassette', 'tapedeck-bench/replayer', 'tapedeck-bench/fuzz', 'tapedeck-bench/contracts']) { const m = await import(entry); console.log(entry, Object.keys(m).length); }",
    ],
    { cwd: project },
  );
  for (const line of imported.stdout.trim().split('\n')) expect(Number(line.split(' ')[1])).toBeGreaterThan(0);
  // tapedeck-bench/vitest needs vitest, an optional peer: the README's examples import it in a project that has vitest.
  // The published files carry the schemas editors are pointed at.
  await readFile(join(project, 'node_modules', name, 'cassettes', 'cassette.schema.json'), 'utf8');
}, 300_000);
