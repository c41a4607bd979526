import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../src/cassette/index.js';
import { verifyCassette } from '../../src/contracts/index.js';
import { DEFAULT_DRIFT_CONFIG, runDrift } from '../../src/drift/index.js';
import { loadCodexProtocol } from '../../src/families/codex/index.js';
import { familyById, type PeerSpec } from '../../src/families/index.js';
import { findHarness, type HarnessProfile, LIVE_TIMINGS, SessionDriver } from '../../src/families/omnigent/index.js';

import { processesUnder, recordTarget, replayCheck, startFamilyMockModel, startPeer } from '../../src/probing/index.js';
import { benchUnderWrapper, startBench } from '../helpers/cli.js';
import { keepInCorpus, replaysAsLive } from '../helpers/corpus.js';

type PeerKind = 'opencode' | 'codex';

const run = promisify(execFile);
const HERE = import.meta.dirname;
const COMMITTED = join(HERE, '..', '..', 'cassettes');
/** Where `npm ci --prefix test/peers` puts each vendor binary (linux x64, as on every machine here). */
/** Where scripts/install-python-peers.sh puts the omnigent server's entry point (from test/peers/python/omnigent.lock). */
const OMNIGENT = join(HERE, 'python', 'omnigent', '.venv', 'bin', 'omnigent');
/** ...and the hermes-agent gateway's (from test/peers/python/hermes.lock). */
const HERMES = join(HERE, 'python', 'hermes', '.venv', 'bin', 'hermes');
/** The Python of the hermes gateway's own install, which has the official openai SDK (2.24.0, from test/peers/python/hermes.lock). */
const HERMES_PYTHON = join(HERE, 'python', 'hermes', '.venv', 'bin', 'python');
/** The Python 3.13 that has hermes-agent-api-client (from test/peers/python/hermes-client.lock). */
const HERMES_CLIENT_PYTHON = join(HERE, 'python', 'hermes-client', '.venv', 'bin', 'python');
const BINARIES: Record<PeerKind, string> = {
  opencode: join(HERE, 'node_modules', 'opencode-linux-x64', 'bin', 'opencode'),
  codex: join(HERE, 'node_modules', '@openai', 'codex-linux-x64', 'vendor', 'x86_64-unknown-linux-musl', 'bin', 'codex'),
};

let out: string;
beforeAll(async () => {
  for (const [kind, binary] of [
    ...Object.entries(BINARIES),
    ['omnigent', OMNIGENT] as const,
    ['hermes', HERMES] as const,
    ['hermes-agent-api-client', HERMES_CLIENT_PYTHON] as const,
  ])
    if (!existsSync(binary))
      throw new Error(`${kind} is not installed at ${binary}; run npm run test:peers, which installs test/peers first`);
  await run('tmux', ['-V']).catch(() => {
    throw new Error('the codex-native peer runs codex in tmux, which is not installed: apt-get install tmux');
  });
  out = await mkdtemp(join(tmpdir(), 'tapedeck-peers-'));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

/**
 * What is new in the temp folder since `before` and still there a moment later, once every process of the peer is
 * gone: what it left behind. tapedeck's own temp folders (this run's, or another test's beside it) are not the peer's
 * doing, nor is a file that goes away by itself (a vitest process elsewhere on the machine writes one for under a
 * second: seen once, named like `mnjvumPE_rhASe36YkrKb`); nothing of the peer is left to remove one of its own.
 */
async function leftInTmp(before: Set<string>): Promise<string[]> {
  const fresh = async () => (await readdir(tmpdir())).filter((n) => !before.has(n) && !n.startsWith('tapedeck-'));
  const first = await fresh();
  if (first.length === 0) return [];
  await sleep(2000);
  const still = new Set(await fresh());
  return first.filter((n) => still.has(n));
}

/**
 * Records an omnigent harness from the real server through the recording proxy and checks it left nothing behind:
 * no process, no root, nothing new in the temp folder (omnigent's harness sockets default to /tmp/omnigent-<uid>,
 * tmux's to /tmp/tmux-<uid>; the peer keeps both under its root). Returns each probe's verdict.
 */
async function recordOmnigentLeavingNothing(variant: string): Promise<Record<string, string>> {
  const before = new Set(await readdir(tmpdir()));
  let root = '';
  const manifest = await recordTarget(familyById('omnigent'), {
    peer: OMNIGENT,
    variant,
    outDir: out,
    onPeerStarted: (peer) => (root = peer.root),
  });
  expect(manifest.target).toMatch(/^omnigent server 0\.19\.1 /);
  expect(root).not.toBe('');
  expect(await processesUnder(root)).toEqual([]);
  expect(existsSync(root)).toBe(false);
  expect(await leftInTmp(before)).toEqual([]);
  return Object.fromEntries(manifest.probes.map((p) => [p.probe, p.verdict]));
}

/**
 * Runs a real client's flow live through `bench proxy` in front of `target` (a
 * real process, stopped by SIGTERM to its PID), then against `bench replay`
 * of what it recorded; returns what the client printed each time.
 */
async function liveThenReplayed(
  target: string,
  cassette: string,
  flow: (url: string) => Promise<string>,
  replayFlow: (url: string) => Promise<string> = flow,
): Promise<{ live: string; replayed: string }> {
  const proxy = await startBench(['proxy', '--target', target, '--port', '0', '--cassette', cassette]);
  let live: string;
  try {
    live = await flow(proxy.url);
  } finally {
    proxy.child.kill('SIGTERM');
  }
  expect(await proxy.exit()).toBe(0);
  const replay = await startBench(['replay', cassette, '--port', '0']);
  try {
    return { live, replayed: await replayFlow(replay.url) };
  } finally {
    replay.child.kill('SIGTERM');
    await replay.exit();
  }
}

/** Every cassette of a recorded folder verifies against its packs (some rule applied, none broken) and replays to its verdict. */
async function expectCleanAndReplayable(dir: string, cassettes: number): Promise<void> {
  const files = (await readdir(dir)).filter((f) => f !== 'manifest.yaml');
  expect(files).toHaveLength(cassettes);
  for (const file of files) {
    const checked = verifyCassette(await loadCassette(join(dir, file)), file);
    expect(checked.rules.length).toBeGreaterThan(0);
    expect([file, checked.rules.flatMap((r) => r.violations)]).toEqual([file, []]);
  }
  const rows = await replayCheck(dir);
  expect(rows.map((r) => [r.probe, r.ok])).toEqual(rows.map((r) => [r.probe, true]));
}

/** `bench drift --peer`: re-records a committed real folder from the pinned binary; every finding, at any severity, as a line. */
async function driftAgainstCommitted(folder: string, binary: string, target: 'omnigent' | 'hermes'): Promise<string[]> {
  const report = await runDrift({
    baseline: COMMITTED,
    harness: folder,
    peer: binary,
    target,
    config: DEFAULT_DRIFT_CONFIG,
    failOn: 'info',
  });
  expect(report.compared.map((c) => c.scope)).toEqual([folder]);
  return report.findings.map((f) => `${f.severity} ${f.subject}: ${f.message}`);
}

describe.each([['opencode' as const], ['codex' as const]])('the real %s server', (kind) => {
  const suite = familyById(kind);
  const folder = suite.peer?.folder as string;
  let root = '';

  it('records every probe through the recording proxy as SUPPORTED, and leaves no process or folder behind', async () => {
    const manifest = await recordTarget(suite, { peer: BINARIES[kind], outDir: out, onPeerStarted: (peer) => (root = peer.root) });
    expect(manifest.probes.map((p) => [p.probe, p.verdict])).toEqual(manifest.probes.map((p) => [p.probe, 'SUPPORTED']));
    expect(manifest.target).toMatch(kind === 'opencode' ? /^opencode serve 1\.18\.33 / : /^codex app-server 0\.171\.0 /);
    expect(root).not.toBe('');
    expect(await processesUnder(root)).toEqual([]);
    expect(existsSync(root)).toBe(false);
  });

  it('bench record --peer, its wrapper killed by PID mid-run: the real server is stopped, nothing is written, exit in seconds', async () => {
    const dest = await mkdtemp(join(tmpdir(), 'tapedeck-peers-stop-'));
    const before = new Set(await readdir(tmpdir()));
    const bench = benchUnderWrapper(['record', '--target', kind, '--peer', BINARIES[kind], '--out', dest]);
    await bench.waitFor(/listening on \S+\n {2}\w+ \.\.\. /);
    const url = /listening on (\S+)/.exec(bench.stderr())?.[1] as string;
    process.kill(bench.wrapperPid, 'SIGTERM');
    await bench.ended;
    const stderr = bench.stderr();
    expect(stderr).toContain('stopped by the process that started it (npx, a shell) exiting');
    // The vendor server (in a process group of its own) is gone with it.
    const port = Number(new URL(url).port);
    await expect(
      new Promise((resolve, reject) => connect(port, '127.0.0.1').on('connect', resolve).on('error', reject)),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    // Nothing moved in; at most the journal of the probe under way, kept for bench recover and said.
    const staged = await readdir(dest);
    expect(staged.every((n) => /^\.[\w-]+\.recording-\d+$/.test(n))).toBe(true);
    for (const n of staged) {
      expect((await readdir(join(dest, n))).every((f) => f.endsWith('.journal'))).toBe(true);
      expect(stderr).toContain('what was recorded before the stop is kept in');
    }
    expect(await leftInTmp(before)).toEqual([]);
    await rm(dest, { recursive: true, force: true });
  });

  it('its cassettes verify clean against the packs', async () => {
    const files = (await readdir(join(out, folder))).filter((f) => f !== 'manifest.yaml');
    expect(files.sort()).toEqual(suite.probes.map((p) => `${p.name}.yaml`).sort());
    for (const file of files) {
      const checked = verifyCassette(await loadCassette(join(out, folder, file)), file);
      expect([file, checked.rules.flatMap((r) => r.violations)]).toEqual([file, []]);
    }
  });

  it('replays offline to the same client code with the same verdicts', async () => {
    const rows = await replayCheck(join(out, folder));
    expect(rows.map((r) => [r.probe, r.ok, r.replayed])).toEqual(rows.map((r) => [r.probe, true, 'SUPPORTED']));
  });

  it('bench drift --peer re-records it once more and finds nothing moved against the committed recording', async () => {
    const lines: string[] = [];
    const report = await runDrift({
      baseline: COMMITTED,
      harness: folder,
      peer: BINARIES[kind],
      target: kind,
      config: DEFAULT_DRIFT_CONFIG,
      failOn: 'info',
      onProgress: (l) => lines.push(l),
    });
    expect(lines[0]).toMatch(
      new RegExp(`^re-recording ${folder} against the real ${kind} \\(.+\\): \\d+ probes, a turn waits at most \\d+\\.\\d s$`),
    );
    // One progress line per probe, each SUPPORTED, none timed out.
    expect(lines.slice(1).every((l) => / SUPPORTED in \d+\.\d s; \d+ left, about \d+ s$/.test(l))).toBe(true);
    expect(report.findings.map((f) => `${f.severity} ${f.subject}: ${f.message}`)).toEqual([]);
  });
});

describe('the codex protocol the pinned binary describes (generate-json-schema)', () => {
  it("every frame of the simulator's and the real server's sessions fits it, requests, notifications and results", async () => {
    const dir = join(out, 'codex-protocol');
    const home = join(out, 'codex-home');
    await mkdir(home, { recursive: true });
    // The schema is generated per run and never committed (reference §6).
    await run(BINARIES.codex, ['app-server', 'generate-json-schema', '--out', dir], {
      env: { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: home },
      timeout: 60_000,
    });
    const protocol = await loadCodexProtocol(dir);
    const folders = ['codex-app-server', 'codex-app-server-real'].map((f) => join(COMMITTED, f));
    let frames = 0;
    for (const folder of [...folders, join(out, familyById('codex').peer?.folder as string)]) {
      for (const file of (await readdir(folder)).filter((f) => f !== 'manifest.yaml')) {
        const session = (await loadCassette(join(folder, file))).interactions[0]?.response?.websocket?.frames ?? [];
        frames += session.length;
        expect([folder, file, protocol.check(session)]).toEqual([folder, file, []]);
      }
    }
    expect(frames).toBeGreaterThan(200);
  });
});

describe('the real omnigent full server (server + bare runner, openai-agents in process)', () => {
  const suite = familyById('omnigent');
  const folder = suite.peer?.folder as string;

  it('records the probes it can run through the recording proxy, with nothing left behind and nothing written outside its root', async () => {
    expect(await recordOmnigentLeavingNothing('openai-agents')).toEqual({
      basic_turn: 'SUPPORTED',
      streaming: 'SUPPORTED',
      // The server's list_files builtin, called by the mock model; session CEL policies deny, allow and ask.
      tool_calling: 'SUPPORTED',
      policy_deny: 'SUPPORTED',
      policy_allow: 'SUPPORTED',
      policy_ask: 'SUPPORTED',
      // Tokens without a cost: the server prices no mock model.
      cost_tracking: 'PARTIAL',
      interrupt: 'SUPPORTED',
    });
  });

  it('its cassettes verify clean against the full-server pack and replay offline to the same verdicts', async () => {
    await expectCleanAndReplayable(join(out, folder), 8);
  });

  it("the maintainers' omnigent_client SDK sees the same turn live through bench proxy and against bench replay of it", async () => {
    const model = await startFamilyMockModel();
    const peer = await startPeer('omnigent', suite.peer as PeerSpec, { binary: OMNIGENT, modelBaseUrl: model.baseUrl });
    const python = join(dirname(OMNIGENT), 'python');
    const flow = join(HERE, 'clients', 'omnigent_client_flow.py');
    const cassette = join(out, 'omnigent-client.yaml');
    try {
      // The bench agent the SDK's flow looks up by name: registered as the driver does.
      await new SessionDriver(peer.url, findHarness('openai-agents') as HarnessProfile, LIVE_TIMINGS).provision();
      const { live, replayed } = await liveThenReplayed(
        peer.url,
        cassette,
        async (url) => (await run(python, [flow, url], { timeout: 90_000 })).stdout,
      );
      expect(live).toContain("response.output_text.delta 'SDK_OK'");
      expect(live).toContain("assistant: ['SDK_OK']");
      expect(replayed).toBe(live);
    } finally {
      await peer.close();
      await model.close();
    }
  });

  it('bench drift --peer re-records it and finds nothing moved against the committed recording', async () => {
    expect(await driftAgainstCommitted(folder, OMNIGENT, 'omnigent')).toEqual([]);
  });
});

describe('the real omnigent server on the native path (server + host daemon + the real codex TUI in tmux)', () => {
  const folder = 'codex-native-real';
  // The host daemon finds codex as omnigent documents it: $OMNIGENT_CODEX_PATH (the pinned binary from test/peers).
  let previous: string | undefined;
  beforeAll(() => {
    previous = process.env.OMNIGENT_CODEX_PATH;
    process.env.OMNIGENT_CODEX_PATH = BINARIES.codex;
  });
  afterAll(() => {
    if (previous === undefined) delete process.env.OMNIGENT_CODEX_PATH;
    else process.env.OMNIGENT_CODEX_PATH = previous;
  });

  it('records codex-native through the recording proxy, response.completed before the output item that ends the turn, nothing left behind', async () => {
    // Every probe, the tool and policy ones included: codex asks the mock model (omnigent's provider config names it)
    // with its tools, and the provider's price gives the turn a cost.
    const verdicts = await recordOmnigentLeavingNothing('codex-native');
    expect(verdicts).toEqual(Object.fromEntries(Object.keys(verdicts).map((p) => [p, 'SUPPORTED'])));
    expect(Object.keys(verdicts)).toHaveLength(8);
    // The native-tui ordering the pack exists for: response.completed first, the output item that ends the turn after it.
    const basic = await loadCassette(join(out, folder, 'basic_turn.yaml'));
    const turn = basic.interactions.flatMap((i) => i.response?.stream?.events.map((e) => e.event) ?? []);
    expect(turn.indexOf('response.completed')).toBeGreaterThan(-1);
    expect(turn.lastIndexOf('response.output_item.done')).toBeGreaterThan(turn.indexOf('response.completed'));
  }, 300_000);

  it('its cassettes verify clean against the native-tui packs and replay offline to the same verdicts', async () => {
    await expectCleanAndReplayable(join(out, folder), 8);
  });

  it('bench drift --peer re-records it and finds nothing moved against the committed recording, but for the races drift is told of', async () => {
    expect(await driftAgainstCommitted(folder, OMNIGENT, 'omnigent')).toEqual([]);
  }, 300_000);
});

describe('the real hermes-agent 0.19.0 gateway (its API server, against the mock model)', () => {
  it('runs isolated behind a key of its own, gives every probe the verdict 0.19.0 earns, and the packs hold on everything it sent', async () => {
    const suite = familyById('hermes');
    let root = '';
    const manifest = await recordTarget(suite, { peer: HERMES, outDir: out, onPeerStarted: (peer) => (root = peer.root) });
    expect(manifest.target).toMatch(/^hermes-agent gateway 0\.19\.0 /);
    const verdicts = Object.fromEntries(manifest.probes.map((p) => [p.probe, p.verdict]));
    // What 0.19.0 has, by its own /v1/capabilities and by what it does; never UNKNOWN, never a pass for what it lacks.
    expect(verdicts).toEqual({
      chat_stream_reasoning: 'NOT_APPLICABLE', // no reasoning_streaming feature
      responses_stream: 'SUPPORTED',
      idempotent_retry: 'NOT_APPLICABLE', // no runs_idempotency feature
      run_clarify: 'NOT_APPLICABLE', // no /v1/runs/{run_id}/clarify endpoint
      run_approval: 'SUPPORTED', // the legacy approval body: {choice}
      tool_failed: 'DRIFT', // a failing tool is reported as tool.completed, with no tool.failed
      cancel_cross_transport: 'DRIFT', // a session chat's run is not a /v1/runs run: its stop answers 404
      room_grant_revoked: 'NOT_APPLICABLE', // no /v1/room-members endpoints
    });
    const reasons = manifest.probes.filter((p) => p.verdict !== 'SUPPORTED').map((p) => `${p.probe}: ${p.reason}`);
    expect(reasons.join('\n')).toMatch(
      /tool_failed: no tool\.failed[\s\S]*cancel_cross_transport: POST \/v1\/runs\/\{run_id\}\/stop answered 404/,
    );
    expect(await processesUnder(root)).toEqual([]);
    expect(existsSync(root)).toBe(false);
    const folder = join(out, suite.peer?.folder as string);
    for (const file of (await readdir(folder)).filter((f) => f !== 'manifest.yaml')) {
      const checked = verifyCassette(await loadCassette(join(folder, file)), file);
      expect([file, checked.rules.flatMap((r) => r.violations)]).toEqual([file, []]);
    }
    const rows = await replayCheck(folder);
    expect(rows.map((r) => [r.probe, r.ok])).toEqual(rows.map((r) => [r.probe, true]));
  });

  it('hermes-agent-api-client, a typed client nobody here wrote, sees the same two turns live through bench proxy and against bench replay', async () => {
    const model = await startFamilyMockModel();
    const peer = await startPeer('hermes', familyById('hermes').peer as PeerSpec, { binary: HERMES, modelBaseUrl: model.baseUrl });
    const flow = join(HERE, 'clients', 'hermes_client_flow.py');
    const cassette = join(out, 'hermes-client.yaml');
    try {
      const flowWith = (key: string) => async (url: string) =>
        (await run(HERMES_CLIENT_PYTHON, [flow, url], { timeout: 90_000, env: { ...process.env, HERMES_API_KEY: key } })).stdout;
      // Replayed with another key: the recording holds none, and any key matches the redacted header.
      const { live, replayed } = await liveThenReplayed(
        peer.url,
        cassette,
        flowWith(peer.apiKey as string),
        flowWith('a-different-key-0123456789abcdef0123'),
      );
      // What the client's user sees: the gateway's capabilities, both turns' deltas, the read_file progress, a successful end each.
      expect(live).toMatch(/^capabilities: hermes\.api_server\.capabilities \S+ bearer True True True$/m);
      expect(live).toContain('AssistantDeltaEvent');
      expect(live).toMatch(/ToolProgressEvent .*"tool_name":"read_file"/);
      expect(live.match(/TerminalEvent .*"outcome":"success"/g)).toHaveLength(2);
      expect(await readFile(cassette, 'utf8')).not.toContain(peer.apiKey as string);
      expect(replayed).toBe(live);
    } finally {
      await peer.close();
      await model.close();
    }
  });

  it('the official openai SDK streams two turns and reads a whole answer the same live, through bench proxy, against bench replay and from the committed corpus', async () => {
    const model = await startFamilyMockModel();
    const peer = await startPeer('hermes', familyById('hermes').peer as PeerSpec, { binary: HERMES, modelBaseUrl: model.baseUrl });
    const flow = join(HERE, 'clients', 'openai_sdk_flow.py');
    const cassette = join(out, 'openai-sdk-hermes.yaml');
    const cleanups: (() => Promise<unknown>)[] = [];
    try {
      const flowWith = (key: string) => async (url: string) =>
        (await run(HERMES_PYTHON, [flow, url], { timeout: 90_000, env: { ...process.env, HERMES_API_KEY: key } })).stdout;
      const { live, replayed } = await liveThenReplayed(
        peer.url,
        cassette,
        flowWith(peer.apiKey as string),
        flowWith('a-different-key-0123456789abcdef0123'),
      );
      expect(live).toMatch(/^models: \[.+\]$/m);
      expect(live.match(/^ {2}finish: stop$/gm)).toHaveLength(2);
      expect(live).toMatch(/^whole: .+ stop$/m);
      expect(await readFile(cassette, 'utf8')).not.toContain(peer.apiKey as string);
      expect(replayed).toBe(live);
      const checked = verifyCassette(await loadCassette(cassette), 'openai-sdk-hermes.yaml');
      expect(checked.rules.flatMap((r) => r.violations)).toEqual([]);
      await keepInCorpus(cassette, 'openai-sdk-hermes.yaml');
      await replaysAsLive('openai-sdk-hermes.yaml', flowWith('another-key-0123456789abcdef012345'), live, cleanups);
    } finally {
      for (const clean of cleanups.reverse()) await clean();
      await peer.close();
      await model.close();
    }
  });

  it('bench drift --peer re-records it and finds nothing moved against the committed recording, verdicts included', async () => {
    expect(await driftAgainstCommitted('hermes-real', HERMES, 'hermes')).toEqual([]);
  });
});
