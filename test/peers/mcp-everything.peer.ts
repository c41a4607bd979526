import { type ChildProcess, execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseCassette } from '../../src/cassette/index.js';
import { cassetteHandlers } from '../../src/replayer/index.js';
import { benchProxyUnderWrapper, benchReplayOf, runBench } from '../helpers/cli.js';
import { keepInCorpus, replaysAsLive } from '../helpers/corpus.js';
import { type McpView, mcpSession } from './clients/mcp-session.mjs';
import { EVERYTHING, startMcpServer } from './mcp-servers.js';

/**
 * MCP as users run it: the official TypeScript SDK client (Streamable HTTP) against the reference "everything"
 * server, both pinned in test/peers. A session of initialize, tools/list, tools/call, logging on the standalone GET
 * stream, a long-running call with progress and the session's DELETE is recorded through `bench proxy` under a
 * wrapper, then replayed five times by `bench replay` and five times through the MSW door: the client sees what it
 * sees with the server itself, every time.
 */

const run = promisify(execFile);
const HERE = import.meta.dirname;
const SESSION = join(HERE, 'clients', 'mcp-session.mjs');
const RUNS = 5;

let server: { url: string; child: ChildProcess };
let direct: McpView;
/** What the client saw through the proxy: what its recording must give back, log count included. */
let recorded: McpView;
let cassetteFile: string;

/** A live view as another live run must see it: how many logs came is the server's timing. */
const live = ({ logCount: _, ...view }: McpView) => view;
const cleanups: (() => Promise<unknown>)[] = [];

/** One session of the SDK client as its own process, against `base`/mcp. */
async function sessionAgainst(base: string): Promise<McpView> {
  const { stdout } = await run(process.execPath, [SESSION, `${base}/mcp`], { timeout: 90_000 });
  return JSON.parse(stdout) as McpView;
}

beforeAll(async () => {
  server = await startMcpServer(EVERYTHING, cleanups);
  direct = await sessionAgainst(server.url);
  // The direct run is the reference: it must itself be a whole session.
  expect(direct.failed).toBeUndefined();
  expect(direct.terminated).toBe(true);
  expect(direct.logArrived).toBe(true);
  expect(direct.longRunning?.progress).toHaveLength(4);
  expect(direct.errors).toEqual([]);
});

afterAll(async () => {
  for (const clean of cleanups.reverse()) await clean();
});

describe('the MCP SDK client against the everything server', () => {
  it('sees through bench proxy what it sees directly, and the recording keeps its progress tokens and scans clean', async () => {
    const proxy = await benchProxyUnderWrapper(server.url, 'mcp-session.yaml', cleanups);
    recorded = await sessionAgainst(proxy.url);
    expect(live(recorded)).toEqual(live(direct));
    process.kill(proxy.bench.wrapperPid, 'SIGTERM');
    await proxy.bench.ended;
    cassetteFile = proxy.file;
    await keepInCorpus(cassetteFile, 'mcp-sdk-everything.yaml');
    const text = await readFile(cassetteFile, 'utf8');
    const cassette = parseCassette(text, cassetteFile);
    // initialize, initialized, the GET stream, four calls with their answers, logging off, DELETE.
    expect(cassette.interactions.map((i) => i.request.method)).toEqual([
      'POST',
      'POST',
      'GET',
      'POST',
      'POST',
      'POST',
      'POST',
      'POST',
      'DELETE',
    ]);
    // MCP's progress token is the number the client picked: kept, in the call and in each notification (decision 0016).
    expect(text).not.toContain('<redacted:progresstoken>');
    expect(text.match(/progressToken\\?":\s?\d+/g)?.length).toBe(5);
    const scan = await runBench(['scan', cassetteFile]);
    expect(scan.stdout + scan.stderr).toContain('no secrets found');
    expect(scan.code).toBe(0);
  });

  it('sees from the committed corpus recording what it sees directly: instant, realtime, and realtime with every core busy', async () => {
    await replaysAsLive('mcp-sdk-everything.yaml', async (url) => live(await sessionAgainst(url)), live(direct), cleanups);
  });

  it(`sees from bench replay what it saw from the server, ${RUNS} times in a row`, async () => {
    expect(cassetteFile).toBeDefined();
    for (let n = 0; n < RUNS; n++) {
      const replay = await benchReplayOf(cassetteFile, cleanups);
      expect(await sessionAgainst(replay.url), `replay ${n + 1}`).toEqual(recorded);
      replay.child.kill('SIGTERM');
      expect(await replay.exit()).toBe(0);
    }
  });

  describe('through the MSW door', () => {
    let msw: ReturnType<typeof setupServer> | undefined;
    afterEach(() => {
      msw?.close();
      msw = undefined;
    });

    it(`sees what it saw from the server, ${RUNS} times in a row`, async () => {
      expect(cassetteFile).toBeDefined();
      const cassette = parseCassette(await readFile(cassetteFile, 'utf8'), cassetteFile);
      for (let n = 0; n < RUNS; n++) {
        const { handlers, engine } = cassetteHandlers([{ name: 'mcp-session.yaml', cassette }]);
        msw = setupServer(...handlers);
        msw.listen({ onUnhandledRequest: 'error' });
        expect(await mcpSession('http://mcp.tapedeck.test/mcp'), `MSW run ${n + 1}`).toEqual(recorded);
        expect(engine.missCount).toBe(0);
        msw.close();
        msw = undefined;
      }
    });
  });
});
