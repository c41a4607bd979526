import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Cassette, loadCassette } from '../../cassette/index.js';
import { UsageError } from '../../errors.js';
import { reconcile } from '../../manifest/index.js';
import { defineFamily, simulatorBasics, TURN_MS, turnCeiling } from '../family.js';
import { checkListening, findProbe, observeSafely, throughDoor } from '../kit/index.js';
import { CodexClient } from './client.js';
import { CODEX_MOCK_RULES } from './mock-model.js';
import { codexAppServer } from './packs.js';
import { codexPeer } from './peer.js';
import { CODEX_PROBES, type CodexProbe } from './probes.js';

export const CODEX_FOLDER = 'codex-app-server';
export const CODEX_PACKS = [codexAppServer];

/** The thread's working folder: fixed, so recordings compare (it becomes `<tmp>/…` in cassettes). */
async function workspace(): Promise<string> {
  const cwd = join(tmpdir(), 'tapedeck-bench', CODEX_FOLDER);
  await mkdir(cwd, { recursive: true });
  return cwd;
}

/** Connects, runs one probe and hangs up; trouble connecting is SKIPPED with the reason, never a capability verdict. */
export async function observeCodexProbe(
  probe: CodexProbe,
  wsUrl: string,
  turnMs = TURN_MS.simulated,
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

/** Replays a recorded codex probe through `bench replay`'s server (WebSocket sessions need a socket); misses are returned too. */
export async function replayCodexProbe(name: string, cassette: Cassette, turnMs = TURN_MS.replay) {
  const probe = findProbe(CODEX_PROBES, name, 'codex');
  // Loaded here: the replayer (msw, undici) is no cost of reading the registry.
  const { startReplayServer } = await import('../../replayer/index.js');
  const server = await startReplayServer([{ name, cassette }]);
  try {
    const { observed, reason } = await observeCodexProbe(probe, server.url.replace(/^http/, 'ws'), turnMs);
    return { verdict: reconcile(observed, 'SUPPORTED'), reason, misses: server.engine.misses.map((m) => m.message) };
  } finally {
    await server.close();
  }
}

/** codex app-server over WebSocket: a text turn, a command approved, one rejected, an interrupt with the approval pending. */
export const codexFamily = defineFamily<CodexProbe>({
  id: 'codex',
  suite: 'codex-app-server',
  summary: 'codex app-server over WebSocket (--server ws://HOST:PORT)',
  help: {
    details: `The codex app-server probes (a text turn, a command approved, one rejected,
an interrupt with the approval pending) run over WebSocket into
<out>/codex-app-server/, from the embedded simulator, from --server
ws://HOST:PORT (codex app-server --listen ws://...), or from --peer, the real
codex binary run offline against tapedeck's mock model (into
<out>/codex-app-server-real/).`,
    examples: [
      'bench record --target codex',
      'bench record --target codex --server ws://127.0.0.1:4500',
      'bench record --target codex --peer ./node_modules/.bin/codex',
    ],
  },
  mockModel: CODEX_MOCK_RULES,
  folder: CODEX_FOLDER,
  packs: CODEX_PACKS,
  probes: CODEX_PROBES,
  checkServer: (url) => {
    if (!/^wss?:\/\//.test(url))
      throw new UsageError(
        `--server ${JSON.stringify(url)}: give the app-server's ws:// URL (codex app-server --listen ws://127.0.0.1:PORT)`,
      );
    return checkListening(url, 'ws://127.0.0.1:4500');
  },
  proxyTarget: (server) => server.replace(/^ws/, 'http'),
  simulator: {
    describe: (seed) => `embedded codex app-server simulator (seed ${seed})`,
    start: async (o) => (await import('./simulator/index.js')).startCodexSimulator(simulatorBasics(o)),
  },
  plan: (context, selected) => ({
    folder: CODEX_FOLDER,
    probes: selected,
    declare: () => ({ declared: 'SUPPORTED' }),
    observe: (probe, url) => observeCodexProbe(probe, url.replace(/^http/, 'ws'), turnCeiling(context)),
  }),
  // WebSocket sessions replay through a socket of their own: the door's fetch has no part in it.
  replay: (recorded, door, pace = 'replay') =>
    throughDoor(door, async () => {
      const cassette = door.cassettes?.[0]?.cassette ?? (await loadCassette(recorded.file));
      const { verdict, reason } = await replayCodexProbe(recorded.probe, cassette, TURN_MS[pace]);
      return { replayed: verdict, reason };
    }),
  peer: codexPeer,
});
