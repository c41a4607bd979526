import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runBench, startBench } from '../helpers/cli.js';
import { A2A_JS, A2A_PYTHON, type A2aServer, startA2aServer } from './a2a-servers.js';

/**
 * The A2A family against agents on both official SDKs, as users run it (`npx bench`): @a2a-js/sdk 1.3.0 and a2a-sdk
 * 1.3.0 for Python (test/peers/clients/a2a-js-server.mjs, a2a_python_server.py), and the official JavaScript client
 * through `bench proxy`.
 */
const run = promisify(execFile);
const HERE = import.meta.dirname;
const ROOT = join(HERE, '..', '..');

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const clean of cleanups.reverse()) await clean();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-a2a-real-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function verdictsIn(manifestFile: string): Promise<Record<string, string>> {
  const manifest = parse(await readFile(manifestFile, 'utf8')) as { probes: { probe: string; verdict: string }[] };
  return Object.fromEntries(manifest.probes.map((p) => [p.probe, p.verdict]));
}

describe.each([A2A_JS, A2A_PYTHON])('bench record --target a2a on $name', (server: A2aServer) => {
  it('gives every probe a verdict, the committed recordings’ own; the recordings verify clean against a2a/jsonrpc', async () => {
    const { url } = await startA2aServer(server, cleanups);
    const out = await tempDir();
    const r = await runBench(['record', '--target', 'a2a', '--server', url, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const verdicts = await verdictsIn(join(out, 'a2a', 'manifest.yaml'));
    expect(Object.keys(verdicts)).toHaveLength(8);
    expect(verdicts).toEqual(await verdictsIn(join(ROOT, 'cassettes', server.folder, 'manifest.yaml')));
    const verify = await runBench(['verify', join(out, 'a2a')]);
    expect(verify.stdout).toMatch(/checked 8 cassettes, .* against 9 rules: no violations/);
    expect(verify.code).toBe(0);
  }, 180_000);

  it('its committed recordings replay and survive bench fuzz --runs 50', async () => {
    const dir = join(ROOT, 'cassettes', server.folder);
    const check = await runBench(['replay-check', dir]);
    expect(check.stdout).toContain('8 passed, 0 failed');
    const fuzz = await runBench(['fuzz', '--cassettes', dir, '--runs', '50']);
    expect(fuzz.stdout).toMatch(/8 probes, \d+ variations in .*: every verdict held/);
    expect(fuzz.code).toBe(0);
  }, 180_000);

  it('a recording of the official JavaScript client through bench proxy is checked with no --pack: a2a/jsonrpc, no violation', async () => {
    const { url } = await startA2aServer(server, cleanups);
    const file = join(await tempDir(), 'sdk-client.yaml');
    const proxy = await startBench(['proxy', '--target', url, '--port', '0', '--cassette', file]);
    cleanups.push(async () => {
      if (proxy.child.exitCode === null) proxy.child.kill('SIGKILL');
    });
    const { stdout } = await run(process.execPath, [join(HERE, 'clients', 'a2a-js-client-flow.mjs'), proxy.url], {
      cwd: HERE,
      timeout: 60_000,
    });
    expect(JSON.parse(stdout)).toEqual({
      task: true,
      kinds: ['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate'],
      got: true,
    });
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    const verify = await runBench(['verify', file]);
    expect(verify.stdout + verify.stderr).toContain('checked with a2a/jsonrpc');
    expect(verify.stdout).toMatch(/checked 1 cassettes?, .* against 9 rules: no violations/);
    expect(verify.code).toBe(0);
  }, 120_000);
});
