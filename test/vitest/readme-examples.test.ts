import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userDocs } from '../helpers/docs.js';
import { startServer, type TestServer } from '../helpers/servers.js';
import { runVitest, userProject } from '../helpers/vitest-project.js';

/**
 * Every TypeScript block of the README and the guides, run as a user would: saved as a test
 * file in a project of its own that installs tapedeck (a link to this
 * checkout, built), next to a copy of the committed cassettes, and run by a
 * real vitest process. A block that is only set-up code (no test of its own)
 * gets one empty test so vitest accepts the file; nothing else is added.
 */

// `ts` blocks run; a sketch that is not whole (a shape to fill in) is written as `typescript`.
const blocks = async () =>
  (await userDocs()).flatMap(({ text }) => [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string));

let project: string;
let greeting: TestServer;
beforeAll(async () => {
  project = await userProject('tapedeck-readme-');
  greeting = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"hello":"world"}');
  });
});
afterAll(async () => {
  await greeting?.close();
  await rm(project, { recursive: true, force: true });
});

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
      const run = await runVitest(project, file, { GREETING_URL: greeting.url });
      if (run.code !== 0 || !/Tests\s+\d+ passed/.test(run.out)) failures.push(`README block ${i + 1}:\n${block}\n${run.out.slice(-1500)}`);
    }
    expect(failures).toEqual([]);
  }, 600_000);
});
