import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeCassette } from '../../src/cassette/index.js';
import { jsonGet } from '../helpers/cassettes.js';
import { startBench } from '../helpers/cli.js';
import { runVitest, userProject } from '../helpers/vitest-project.js';

/** A server that echoes a nonce in its query: a client sends a fresh one each run. */
const cassette = jsonGet('/echo?nonce=1&q=a', { echoed: 'a' });

let project: string;
beforeAll(async () => {
  project = await userProject('tapedeck-one-config-');
  await writeFile(join(project, 'echo.yaml'), serializeCassette(cassette));
  await writeFile(join(project, 'tapedeck.config.json'), JSON.stringify({ match: { ignoreQuery: ['nonce'] } }));
});
afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

describe('one tapedeck.config.json for every door', () => {
  it('useCassette, the undici door and bench replay match alike: the config ignores the nonce for all three', async () => {
    await writeFile(
      join(project, 'echo.test.ts'),
      `import { expect, it } from 'vitest';
import { fetch as undiciFetch } from 'undici';
import { cassetteDispatcher, loadCassetteSet } from 'tapedeck-bench/replayer';
import { useCassette } from 'tapedeck-bench/vitest';
useCassette('./echo.yaml');
it('answers a fresh nonce from the recording', async () => {
  expect(await (await fetch('http://127.0.0.1:1/echo?nonce=77&q=a')).json()).toEqual({ echoed: 'a' });
});
it('answers it through the undici door too', async () => {
  const dispatcher = cassetteDispatcher(await loadCassetteSet('./echo.yaml'));
  expect(await (await undiciFetch('http://api.test/echo?nonce=78&q=a', { dispatcher })).json()).toEqual({ echoed: 'a' });
});
it('names the option in code, which wins over the file, when a miss could be ignored', async () => {
  const dispatcher = cassetteDispatcher(await loadCassetteSet('./echo.yaml'), { ignoreQuery: [] });
  const failed = await undiciFetch('http://api.test/echo?nonce=79&q=a', { dispatcher }).catch((e) => e);
  expect(String(failed.cause?.message ?? failed.message)).toContain('the ignoreQuery option passed in code (it wins over tapedeck.config.json)');
});
`,
    );
    const run = await runVitest(project, 'echo.test.ts');
    expect(run.out).toMatch(/Tests\s+3 passed/);
    expect(run.code).toBe(0);
    const replay = await startBench(['replay', 'echo.yaml', '--port', '0'], { cwd: project });
    try {
      expect(await (await fetch(`${replay.url}/echo?nonce=77&q=a`)).json()).toEqual({ echoed: 'a' });
    } finally {
      replay.child.kill('SIGTERM');
      await replay.exit();
    }
  }, 120_000);

  it('refuses a record mode it does not know, listing the modes', async () => {
    await writeFile(
      join(project, 'typo.test.ts'),
      `import { it } from 'vitest';
import { useCassette } from 'tapedeck-bench/vitest';
useCassette('./echo.yaml', { record: 'recrod' as never });
it('never runs', () => {});
`,
    );
    const run = await runVitest(project, 'typo.test.ts');
    expect(run.code).not.toBe(0);
    expect(run.out).toContain('useCassette record: "recrod" is not a record mode; use one of replay, once, missing, record, passthrough');
  }, 120_000);

  it('reads CI as CI tools set it: CI=1 replays only', async () => {
    await writeFile(
      join(project, 'ci.test.ts'),
      `import { it } from 'vitest';
import { useCassette } from 'tapedeck-bench/vitest';
useCassette('./never-recorded.yaml', { record: 'once' });
it('never records', () => {});
`,
    );
    const run = await runVitest(project, 'ci.test.ts', { CI: '1' });
    expect(run.code).not.toBe(0);
    expect(run.out).toMatch(/CI=1 replays only, and .*never-recorded\.yaml is missing/);
  }, 120_000);

  it('fails the test a miss happened in, with the nearest recording and the field that differs, and not the test beside it', async () => {
    await writeFile(
      join(project, 'miss.test.ts'),
      `import { expect, it } from 'vitest';
import { useCassette } from 'tapedeck-bench/vitest';
useCassette('./echo.yaml');
it('asks for what was recorded', async () => {
  expect(await (await fetch('http://127.0.0.1:1/echo?nonce=5&q=a')).json()).toEqual({ echoed: 'a' });
});
it('asks for another query', async () => {
  await fetch('http://127.0.0.1:1/echo?nonce=5&q=b').catch(() => undefined);
});
`,
    );
    const run = await runVitest(project, 'miss.test.ts');
    expect(run.code).not.toBe(0);
    // The failing test is the one that missed; its message is the explanation.
    expect(run.out).toMatch(/FAIL .*miss\.test\.ts > asks for another query/);
    expect(run.out).not.toMatch(/FAIL .*miss\.test\.ts > asks for what was recorded/);
    expect(run.out).toMatch(/no recorded interaction matches GET \/echo\?nonce=5&q=b\. Nearest: .*echo\.yaml #1/);
    expect(run.out).toMatch(/query\.q/);
  }, 120_000);
});
