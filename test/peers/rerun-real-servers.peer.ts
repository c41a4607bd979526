import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { familyById, type PeerSpec } from '../../src/families/index.js';
import { startFamilyMockModel, startPeer } from '../../src/probing/index.js';
import { benchProxyUnderWrapper, runBench } from '../helpers/cli.js';
import { startSessionServer } from '../rerun/session-server.js';
import { EVERYTHING, startMcpServer } from './mcp-servers.js';

/**
 * `bench drift --server` on recordings of clients no family knows, made through `npx bench proxy`: a Python httpx
 * client of a session API (and its next release), the official MCP SDK client on server-everything (a session
 * header), and a Python client of opencode serve (session and permission ids in paths). Each re-runs against the
 * same release with nothing to report, in 3 of 3 rounds.
 */
const run = promisify(execFile);
const HERE = import.meta.dirname;
/** Python 3.13 with httpx 0.28.1 (test/peers/python/hermes-client.lock). */
const PYTHON = join(HERE, 'python', 'hermes-client', '.venv', 'bin', 'python');
const OPENCODE = join(HERE, 'node_modules', 'opencode-linux-x64', 'bin', 'opencode');
const ROUNDS = 3;

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const clean of cleanups.reverse()) await clean();
});

/** Records `client` (given the proxy's URL) through `npx bench proxy` in front of `target`; the recordings' folder. */
async function recordThroughProxy(target: string, client: (url: string) => Promise<string>): Promise<{ dir: string; printed: string }> {
  const proxy = await benchProxyUnderWrapper(target, 'flow.yaml', cleanups);
  const printed = await client(proxy.url);
  process.kill(proxy.bench.wrapperPid, 'SIGTERM');
  await proxy.bench.ended;
  cleanups.push(() => rm(dirname(proxy.file), { recursive: true, force: true }));
  return { dir: dirname(proxy.file), printed };
}

async function drift(baseline: string, server: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runBench(['drift', '--baseline', baseline, '--server', server, '--fail-on', 'info']);
}

async function silentInEveryRound(baseline: string, server: string): Promise<void> {
  for (let n = 1; n <= ROUNDS; n++) {
    const result = await drift(baseline, server);
    expect(result.stdout, `round ${n}: ${result.stderr}`).toMatch(/: 0 breaking, 0 notable, 0 info /);
    expect(result.code, `round ${n}`).toBe(0);
  }
}

describe('a Python httpx client of a session API', () => {
  it(`re-runs with nothing to report in ${ROUNDS} of ${ROUNDS} rounds, and names what its next release changed`, async () => {
    if (!existsSync(PYTHON)) throw new Error(`httpx is not installed at ${PYTHON}; run npm run test:peers`);
    const [server, changed] = await Promise.all([startSessionServer(), startSessionServer(true)]);
    cleanups.push(
      () => server.stop(),
      () => changed.stop(),
    );
    const flow = async (url: string) => (await run(PYTHON, [join(HERE, 'clients', 'session_client.py'), url])).stdout.trim();
    const { dir, printed } = await recordThroughProxy(server.url, flow);
    expect(printed).toBe('You said: hi from python');
    await silentInEveryRound(dir, server.url);
    const result = await drift(dir, changed.url);
    expect(result.stdout).toContain('[breaking] message.completed: event type message.completed disappeared');
    expect(result.stdout).toContain('[info] GET /sessions/{id}/messages/{id}: field usage added');
    expect(result.code).toBe(1);
  }, 180_000);
});

describe('the official MCP SDK client on server-everything', () => {
  it(`re-runs with a new Mcp-Session-Id and nothing to report, in ${ROUNDS} of ${ROUNDS} rounds`, async () => {
    const { url } = await startMcpServer(EVERYTHING, cleanups);
    const flows = async (base: string) =>
      (await run(process.execPath, [join(HERE, 'clients', 'mcp-probe-flows.mjs'), `${base}/mcp`], { timeout: 90_000 })).stdout;
    const { dir } = await recordThroughProxy(url, flows);
    await silentInEveryRound(dir, url);
  }, 300_000);
});

describe('a Python client of opencode serve', () => {
  it(`re-runs with new session and permission ids and nothing to report, in ${ROUNDS} of ${ROUNDS} rounds`, async () => {
    if (!existsSync(OPENCODE)) throw new Error(`opencode is not installed at ${OPENCODE}; run npm run test:peers`);
    const model = await startFamilyMockModel();
    const peer = await startPeer('opencode', familyById('opencode').peer as PeerSpec, { binary: OPENCODE, modelBaseUrl: model.baseUrl });
    cleanups.push(
      () => model.close(),
      () => peer.close(),
    );
    const flow = async (url: string) =>
      (await run(PYTHON, [join(HERE, 'clients', 'opencode_flow.py'), url], { timeout: 120_000 })).stdout.trim();
    const { dir, printed } = await recordThroughProxy(peer.url, flow);
    expect(printed).toBe('completed');
    await silentInEveryRound(dir, peer.url);
  }, 300_000);
});
