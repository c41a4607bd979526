import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * A project of a user's own in a temp folder: tapedeck installed as a link to this checkout (built), its test
 * dependencies beside it, a copy of the committed cassettes, and a vitest config that runs `*.test.ts`.
 */
export async function userProject(prefix: string): Promise<string> {
  const project = await mkdtemp(join(tmpdir(), prefix));
  await mkdir(join(project, 'node_modules'));
  // The project's dependencies: this checkout's, with tapedeck-bench itself as the checkout.
  for (const dep of ['vitest', 'msw', 'undici', '@vitest', 'vite', 'ws'])
    await symlink(join(ROOT, 'node_modules', dep), join(project, 'node_modules', dep));
  await symlink(ROOT, join(project, 'node_modules', 'tapedeck-bench'));
  await cp(join(ROOT, 'cassettes'), join(project, 'cassettes'), { recursive: true });
  await writeFile(join(project, 'package.json'), '{ "type": "module" }\n');
  await writeFile(join(project, 'vitest.config.mjs'), "export default { test: { include: ['*.test.ts'], testTimeout: 60000 } };\n");
  return project;
}

/** Runs one test file of the project with a real vitest process, from the project's folder. */
export function runVitest(project: string, file: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', file, '--root', project, '--config', join(project, 'vitest.config.mjs')],
      { cwd: project, env: { ...process.env, CI: '', FORCE_COLOR: '0', NO_COLOR: '1', ...env }, timeout: 120_000 },
      (err, stdout, stderr) => done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}
