import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startServer } from '../helpers/servers.js';
import { runVitest, userProject } from '../helpers/vitest-project.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Values no built-in rule takes for a secret: only the config's own `redact` section can keep them off disk. */
const TENANT = 'tenant-acme-4411';
const MEMBERSHIP = 'gold-member-7731';

/** A user's test file recording through each door: useCassette, the undici door and the MSW door. */
function userTest(base: string, project: string): string {
  const file = (name: string) => JSON.stringify(join(project, name));
  return `import { describe, expect, it } from 'vitest';
import { setupServer } from 'msw/node';
import { cassetteDispatcher, cassetteHandlers } from 'tapedeck-bench/doors';
import { useCassette } from 'tapedeck-bench/vitest';
const ask = (init) => fetch(${JSON.stringify(`${base}/v1/account`)}, { headers: { 'x-tenant': ${JSON.stringify(TENANT)} }, ...init }).then((r) => r.json());
describe('useCassette', () => {
  useCassette(${file('use-cassette.yaml')}, { record: 'once' });
  it('records', async () => expect((await ask()).membership).toBe(${JSON.stringify(MEMBERSHIP)}));
});
it('records through the undici door', async () => {
  const dispatcher = cassetteDispatcher([], { record: 'record', saveTo: ${file('undici-door.yaml')} });
  expect((await ask({ dispatcher })).membership).toBe(${JSON.stringify(MEMBERSHIP)});
  await dispatcher.close();
});
it('records through the MSW door', async () => {
  const door = cassetteHandlers([], { record: 'record', saveTo: ${file('msw-door.yaml')} });
  const server = setupServer(...door.handlers);
  server.listen({ onUnhandledRequest: 'error' });
  expect((await ask()).membership).toBe(${JSON.stringify(MEMBERSHIP)});
  server.close();
  await door.save();
});
`;
}

it("every door's recording redacts what the project's tapedeck.config.json redact section names, as bench proxy does", async () => {
  const server = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ membership: MEMBERSHIP, plan: 'team' }));
  });
  cleanups.push(() => server.close());
  const project = await userProject('tapedeck-config-redaction-');
  cleanups.push(() => rm(project, { recursive: true, force: true }));
  const redact = { headers: ['x-tenant'], jsonFields: ['membership'] };
  await writeFile(join(project, 'tapedeck.config.json'), `${JSON.stringify({ redact }, null, 2)}\n`);
  await writeFile(join(project, 'doors.test.ts'), userTest(server.url, project));
  const run = await runVitest(project, 'doors.test.ts');
  expect(run.code, run.out).toBe(0);
  for (const name of ['use-cassette.yaml', 'undici-door.yaml', 'msw-door.yaml']) {
    const text = await readFile(join(project, name), 'utf8');
    expect(text, name).toContain('"plan":"team"');
    expect(text, name).toContain('<redacted:membership>');
    expect(text, name).toContain('<redacted:x-tenant>');
    expect(text, name).not.toContain(TENANT);
    expect(text, name).not.toContain(MEMBERSHIP);
  }
}, 120_000);
