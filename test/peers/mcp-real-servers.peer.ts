import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { benchProxyUnderWrapper, benchReplayOf, runBench } from '../helpers/cli.js';
import { driftLines } from './drift-lines.js';
import { EVERYTHING, EVERYTHING_2026_1_26, FASTMCP, type McpServer, startMcpServer } from './mcp-servers.js';

/**
 * The MCP family against real servers of two makers, as users run it (`npx bench`): the reference
 * server-everything (the pinned 2026.8.31, and 2026.1.26 for drift between releases) and an example server on the
 * official Python SDK (test/peers/clients/fastmcp_server.py, mcp 2.3.0 from test/peers/python/mcp-fastmcp.lock).
 */

const run = promisify(execFile);
const HERE = import.meta.dirname;
const ROOT = join(HERE, '..', '..');
const FLOWS = join(HERE, 'clients', 'mcp-probe-flows.mjs');
const ROUNDS = 3;

/** The servers with committed recordings: cassettes/<folder>. */
const COMMITTED = new Map([
  [EVERYTHING, 'mcp-everything-real'],
  [FASTMCP, 'mcp-fastmcp-real'],
]);

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const clean of cleanups.reverse()) await clean();
});

/** Starts a server on a free loopback port; it is stopped by its PID when the file's tests end. */
const start = async (server: McpServer) => (await startMcpServer(server, cleanups)).url;

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-mcp-real-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

type Verdicts = Record<string, string>;
async function verdictsIn(manifestFile: string): Promise<Verdicts> {
  const manifest = parse(await readFile(manifestFile, 'utf8')) as { probes: { probe: string; verdict: string }[] };
  return Object.fromEntries(manifest.probes.map((p) => [p.probe, p.verdict]));
}

/** `npx bench record --target mcp --server`: the folder it wrote. */
async function record(url: string): Promise<{ dir: string; verdicts: Verdicts }> {
  const out = await tempDir();
  const r = await runBench(['record', '--target', 'mcp', '--server', `${url}/mcp`, '--out', out]);
  // 0 when every verdict is the declared one, 1 when one drifted (server-everything's 400 for a dead session).
  expect([0, 1], r.stderr).toContain(r.code);
  return { dir: join(out, 'mcp'), verdicts: await verdictsIn(join(out, 'mcp', 'manifest.yaml')) };
}

/** `npx bench drift --target mcp --server` against a baseline folder, every severity, as the expected file writes it. */
const drift = (baseline: string, url: string) => driftLines('mcp', baseline, `${url}/mcp`);

/** One session of the official SDK client through the probes' flows, as its own process. */
async function flows(base: string): Promise<unknown> {
  const { stdout } = await run(process.execPath, [FLOWS, `${base}/mcp`], { timeout: 90_000 });
  return JSON.parse(stdout);
}

describe.each([EVERYTHING, EVERYTHING_2026_1_26, FASTMCP])('bench record --target mcp on $name', (server) => {
  it('gives every probe a verdict, and its recordings verify clean against mcp/streamable-http', async () => {
    const url = await start(server);
    const { dir, verdicts } = await record(url);
    expect(Object.keys(verdicts)).toHaveLength(12);
    for (const verdict of Object.values(verdicts)) expect(['SUPPORTED', 'NOT_APPLICABLE', 'DRIFT']).toContain(verdict);
    // The same verdicts as the committed recordings of the same server (2026.1.26: as the pinned release's).
    expect(verdicts).toEqual(await verdictsIn(join(ROOT, 'cassettes', COMMITTED.get(server) ?? 'mcp-everything-real', 'manifest.yaml')));
    const verify = await runBench(['verify', dir]);
    expect(verify.stdout).toMatch(/checked 12 cassettes, .* against 17 rules: no violations/);
    expect(verify.code).toBe(0);
  }, 180_000);
});

describe.each([EVERYTHING, FASTMCP])('the official SDK client through the probes’ flows on $name', (server) => {
  it(`sees the same live, through bench proxy, and from bench replay, ${ROUNDS} of ${ROUNDS} times`, async () => {
    const url = await start(server);
    const direct = (await flows(url)) as { failed?: string; terminated?: boolean; errors: string[] };
    expect(direct.failed).toBeUndefined();
    expect(direct.terminated).toBe(true);
    // The SDK's only complaint may be the FastMCP server's result for the call it cancelled, which the server
    // finishes anyway (the cancel probe's "the one result already under way"): an answer for no pending request.
    expect(direct.errors.filter((e) => !/unknown message ID/.test(e))).toEqual([]);
    for (let n = 1; n <= ROUNDS; n++) {
      const proxy = await benchProxyUnderWrapper(url, 'flows.yaml', cleanups);
      expect(await flows(proxy.url), `through bench proxy, round ${n}`).toEqual(direct);
      process.kill(proxy.bench.wrapperPid, 'SIGTERM');
      await proxy.bench.ended;
      const replay = await benchReplayOf(proxy.file, cleanups);
      expect(await flows(replay.url), `from bench replay, round ${n}`).toEqual(direct);
      replay.child.kill('SIGTERM');
      expect(await replay.exit()).toBe(0);
    }
  }, 300_000);
});

describe('bench drift between server-everything releases', () => {
  it('2026.1.26 against the pinned release prints exactly the committed, source-traced report', async () => {
    const text = await readFile(join(ROOT, 'test', 'drift', 'releases', 'mcp-everything-2026.1.26-vs-2026.8.31.expected.txt'), 'utf8');
    const expected = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    expect(await drift(join(ROOT, 'cassettes', 'mcp-everything-real'), await start(EVERYTHING_2026_1_26))).toEqual(expected);
  }, 180_000);

  it(`each release against itself prints nothing, in ${ROUNDS} of ${ROUNDS} rounds`, async () => {
    const pinned = await start(EVERYTHING);
    const older = await start(EVERYTHING_2026_1_26);
    const olderBaseline = (await record(older)).dir;
    for (let n = 1; n <= ROUNDS; n++) {
      expect(await drift(join(ROOT, 'cassettes', 'mcp-everything-real'), pinned), `2026.8.31, round ${n}`).toEqual([
        'compared mcp-everything-real: 12 probes',
      ]);
      expect(await drift(olderBaseline, older), `2026.1.26, round ${n}`).toEqual(['compared mcp: 12 probes']);
    }
  }, 600_000);
});
