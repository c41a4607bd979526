import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userDocs } from '../helpers/docs.js';
import { startServer, type TestServer } from '../helpers/servers.js';

/**
 * Every TypeScript block of the README and the guides, run as a user would: saved as a test
 * file in a project of its own that installs tapedeck (a link to this
 * checkout, built), next to a copy of the committed cassettes, and run by a
 * real vitest process. A block that is only set-up code (no test of its own)
 * gets one empty test so vitest accepts the file; nothing else is added.
 */

const ROOT = resolve(import.meta.dirname, '..', '..');
// `ts` blocks run; a sketch that is not whole (a shape to fill in) is written as `typescript`.
const blocks = async () =>
  (await userDocs()).flatMap(({ text }) => [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string));

let project: string;
let greeting: TestServer;
beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'tapedeck-readme-'));
  await mkdir(join(project, 'node_modules'));
  // The project's dependencies: this checkout's, with tapedeck-bench itself as the checkout.
  for (const dep of ['vitest', 'msw', 'undici', '@vitest', 'vite', 'ws'])
    await symlink(join(ROOT, 'node_modules', dep), join(project, 'node_modules', dep));
  await symlink(ROOT, join(project, 'node_modules', 'tapedeck-bench'));
  await cp(join(ROOT, 'cassettes'), join(project, 'cassettes'), { recursive: true });
  await writeFile(join(project, 'package.json'), '{ "type": "module" }\n');
  await writeFile(join(project, 'vitest.config.mjs'), "export default { test: { include: ['*.test.ts'], testTimeout: 60000 } };\n");
  greeting = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"hello":"world"}');
  });
});
afterAll(async () => {
  await greeting?.close();
  await rm(project, { recursive: true, force: true });
});

function runVitest(file: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', file, '--root', project, '--config', join(project, 'vitest.config.mjs')],
      { cwd: project, env: { ...process.env, CI: '', FORCE_COLOR: '0', NO_COLOR: '1', ...env }, timeout: 120_000 },
      (err, stdout, stderr) => done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describe('the README examples', () => {
  it('has its TypeScript examples where this test looks for them', async () => {
    expect((await blocks()).length).toBeGreaterThanOrEqual(6);
  });

  it('each runs as written and passes', async () => {
    const failures: string[] = [];
    for (const [i, block] of (await blocks()).entries()) {
      const file = `block-${i + 1}.test.ts`;
      const ownTest = /^\s*it\(/m.test(block);
      await writeFile(
        join(project, file),
        ownTest ? block : `${block}\nimport { it as __readme_it } from 'vitest';\n__readme_it('runs', () => {});\n`,
      );
      const run = await runVitest(file, { GREETING_URL: greeting.url });
      if (run.code !== 0 || !/Tests\s+\d+ passed/.test(run.out)) failures.push(`README block ${i + 1}:\n${block}\n${run.out.slice(-1500)}`);
    }
    expect(failures).toEqual([]);
  }, 600_000);
});
