import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpAgent } from '@ag-ui/client';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runBench, startBench } from '../helpers/cli.js';
import { type AgUiServer, LANGGRAPH, PYDANTIC_AI, PYDANTIC_AI_2_60, startAgUiServer } from './ag-ui-servers.js';
import { driftLines } from './drift-lines.js';

/**
 * The AG-UI family against real servers of two projects, as users run it (`npx bench`): pydantic-ai's AGUIAdapter
 * and LangGraph's ag-ui-langgraph, each a small agent on tapedeck's mock model (test/peers/clients/agui_*_server.py).
 */
const ROOT = join(import.meta.dirname, '..', '..');
const ROUNDS = 3;

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const clean of cleanups.reverse()) await clean();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-agui-real-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function verdictsIn(manifestFile: string): Promise<Record<string, string>> {
  const manifest = parse(await readFile(manifestFile, 'utf8')) as { probes: { probe: string; verdict: string }[] };
  return Object.fromEntries(manifest.probes.map((p) => [p.probe, p.verdict]));
}

describe.each([PYDANTIC_AI, LANGGRAPH])('bench record --target ag-ui on $name', (server: AgUiServer) => {
  it('gives every probe its verdict; the recordings verify clean, replay, and hold under fuzzing', async () => {
    const { url } = await startAgUiServer(server, cleanups);
    const out = await tempDir();
    const r = await runBench(['record', '--target', 'ag-ui', '--server', url, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const verdicts = await verdictsIn(join(out, 'ag-ui', 'manifest.yaml'));
    expect(Object.values(verdicts)).toEqual(Array(6).fill('SUPPORTED'));
    // The same verdicts as the committed recordings of the same server.
    expect(verdicts).toEqual(await verdictsIn(join(ROOT, 'cassettes', server.folder, 'manifest.yaml')));
    const verify = await runBench(['verify', join(out, 'ag-ui')]);
    expect(verify.stdout).toMatch(/checked 6 cassettes, 7 streams, \d+ events against 19 rules: no violations/);
    expect(verify.code).toBe(0);
  }, 180_000);

  it('its committed recordings replay and survive bench fuzz --runs 50', async () => {
    const dir = join(ROOT, 'cassettes', server.folder);
    const check = await runBench(['replay-check', dir]);
    expect(check.stdout).toContain('6 passed, 0 failed');
    const fuzz = await runBench(['fuzz', '--cassettes', dir, '--runs', '50']);
    expect(fuzz.stdout).toMatch(/6 probes, \d+ variations in .*: every verdict held/);
    expect(fuzz.code).toBe(0);
  }, 180_000);

  it('a recording of the official client through bench proxy is checked with no --pack: ag-ui/events, no violation', async () => {
    const { url } = await startAgUiServer(server, cleanups);
    const file = join(await tempDir(), 'http-agent.yaml');
    const proxy = await startBench(['proxy', '--target', new URL(url).origin, '--port', '0', '--cassette', file]);
    cleanups.push(async () => {
      if (proxy.child.exitCode === null) proxy.child.kill('SIGKILL');
    });
    const agent = new HttpAgent({ url: `${proxy.url}/agent`, threadId: `thread-${Date.now()}` });
    agent.addMessage({ id: 'u1', role: 'user', content: 'What is the weather in Paris?' });
    await agent.runAgent();
    agent.addMessage({ id: 'u2', role: 'user', content: 'Thanks. Say hello.' });
    await agent.runAgent();
    expect(agent.messages.some((m) => m.role === 'tool')).toBe(true);
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    const verify = await runBench(['verify', file]);
    expect(verify.stdout + verify.stderr).toContain('checked with ag-ui/events');
    expect(verify.stdout).toMatch(/checked 1 cassettes?, 2 streams, \d+ events against 19 rules: no violations/);
    expect(verify.code).toBe(0);
  }, 120_000);
});

/** `npx bench drift --target ag-ui --server` against a baseline folder, every severity, as the expected file writes it. */
const drift = (baseline: string, url: string) => driftLines('ag-ui', baseline, url);

describe('bench drift between pydantic-ai releases', () => {
  it('2.60.0 against the pinned 2.78.0 prints exactly the committed, source-traced report', async () => {
    const text = await readFile(join(ROOT, 'test', 'drift', 'releases', 'ag-ui-pydantic-2.60.0-vs-2.78.0.expected.txt'), 'utf8');
    const expected = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    const { url } = await startAgUiServer(PYDANTIC_AI_2_60, cleanups);
    expect(await drift(join(ROOT, 'cassettes', 'ag-ui-pydantic-real'), url)).toEqual(expected);
  }, 180_000);

  it(`each release against itself prints nothing, in ${ROUNDS} of ${ROUNDS} rounds`, async () => {
    const pinned = (await startAgUiServer(PYDANTIC_AI, cleanups)).url;
    const older = (await startAgUiServer(PYDANTIC_AI_2_60, cleanups)).url;
    const out = await tempDir();
    const r = await runBench(['record', '--target', 'ag-ui', '--server', older, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    for (let n = 1; n <= ROUNDS; n++) {
      expect(await drift(join(ROOT, 'cassettes', 'ag-ui-pydantic-real'), pinned), `2.78.0, round ${n}`).toEqual([
        'compared ag-ui-pydantic-real: 6 probes',
      ]);
      expect(await drift(join(out, 'ag-ui'), older), `2.60.0, round ${n}`).toEqual(['compared ag-ui: 6 probes']);
    }
  }, 600_000);
});
