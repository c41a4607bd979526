import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Cassette, loadCassette } from '../cassette/index.js';
import { UsageError } from '../errors.js';
import type { Manifest } from '../probes/manifest.js';
import { LIVE_TURN_MS, observeSafely, recordSuite, SIMULATED_TURN_MS, type SuiteOptions, selectNamed } from '../probes/record-suite.js';
import { reconcile } from '../probes/verdict.js';
import { startReplayServer } from '../replayer/index.js';
import { startCodexSimulator } from '../simulator/codex/index.js';
import { CodexClient } from './client.js';
import { CODEX_PROBES, type CodexProbe } from './probes.js';

/** The folder (under --out) and manifest harness name of codex app-server recordings. */
export const CODEX_FOLDER = 'codex-app-server';
export const CODEX_PACKS = ['codex/app-server'];

/** `server` is a live `codex app-server --listen ws://…` URL. */
export type RecordCodexOptions = SuiteOptions;

/** The thread's working folder: fixed, so recordings compare (it becomes `<tmp>/…` in cassettes). */
async function workspace(): Promise<string> {
  const cwd = join(tmpdir(), 'tapedeck-bench', CODEX_FOLDER);
  await mkdir(cwd, { recursive: true });
  return cwd;
}

/** Connects, runs one probe and hangs up; connection trouble is UNKNOWN with the reason, never a capability verdict. */
export async function observeCodexProbe(
  probe: CodexProbe,
  wsUrl: string,
  turnMs = SIMULATED_TURN_MS,
  WebSocketClass?: Parameters<typeof CodexClient.connect>[1],
) {
  let client: CodexClient | undefined;
  try {
    return await observeSafely(async () => {
      client = await CodexClient.connect(wsUrl, WebSocketClass);
      return probe.run(client, { cwd: await workspace(), turnMs });
    });
  } finally {
    await client?.close().catch(() => {});
  }
}

/** Replays a recorded codex probe through `bench replay`'s server (WebSocket sessions need a socket). */
export async function replayCodexProbe(name: string, cassette: Cassette, turnMs = SIMULATED_TURN_MS) {
  const probe = CODEX_PROBES.find((p) => p.name === name);
  if (!probe) throw new UsageError(`unknown codex probe ${name}`);
  const server = await startReplayServer([{ name, cassette }]);
  try {
    const { observed, reason } = await observeCodexProbe(probe, server.url.replace(/^http/, 'ws'), turnMs);
    return { verdict: reconcile(observed, 'SUPPORTED'), reason, misses: server.engine.misses.map((m) => m.message) };
  } finally {
    await server.close();
  }
}

/** As `replayCodexProbe`, from a cassette file. */
export async function replayCodexFile(name: string, file: string, turnMs?: number) {
  return replayCodexProbe(name, await loadCassette(file), turnMs);
}

/** Runs the codex probes through the recording proxy into `outDir/codex-app-server/`. */
export async function recordCodex(options: RecordCodexOptions): Promise<Manifest> {
  const probes = selectNamed(CODEX_PROBES, options.probes, 'codex');
  if (options.server && !/^wss?:\/\//.test(options.server))
    throw new UsageError(
      `--server ${JSON.stringify(options.server)}: give the app-server's ws:// URL (codex app-server --listen ws://127.0.0.1:PORT)`,
    );
  const seed = options.seed ?? 1;
  const simulator = options.server ? undefined : await startCodexSimulator({ seed });
  const wsTarget = options.server ?? (simulator as { url: string }).url;
  try {
    return await recordSuite(
      {
        suite: 'codex-app-server',
        folder: CODEX_FOLDER,
        outDir: options.outDir,
        target: wsTarget.replace(/^ws/, 'http'),
        described: simulator ? `embedded codex app-server simulator (seed ${seed})` : wsTarget,
        packs: CODEX_PACKS,
        redact: options.redact,
        probes,
        observe: (probe, url) => observeCodexProbe(probe, url.replace(/^http/, 'ws'), simulator ? SIMULATED_TURN_MS : LIVE_TURN_MS),
        onProgress: options.onProgress,
      },
      options,
    );
  } finally {
    await simulator?.close();
  }
}
