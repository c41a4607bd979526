import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reconcile } from '../../manifest/index.js';
import { type DriftNoise, defineFamily, simulatorBasics, TURN_MS, turnCeiling } from '../family.js';
import { checkHealthRoute, type FetchLike, findProbe, JsonClient, observeSafely, REPLAY_ORIGIN, throughDoor } from '../kit/index.js';
import { runCommandRule } from '../shared/run-command-rule.js';
import { opencodeEvents } from './packs.js';
import { opencodePeer } from './peer.js';
import { OPENCODE_PROBES, type OpenCodeProbe } from './probes.js';

export const OPENCODE_FOLDER = 'opencode-serve';
export const OPENCODE_PACKS = [opencodeEvents];

/**
 * The real server's own races, seen re-running one client's flow against one release: a tool part's update and the
 * permission.asked of that tool are published by two fibers, in either order; the session's title and diff are
 * worked out in the background, so their updates come between any two events, once or more. The simulator has none.
 */
const REAL_SERVER_NOISE: DriftNoise = {
  unordered: [['message.part.updated', 'permission.asked']],
  sometimes: [],
  unplaced: { '*': ['session.updated', 'session.diff', 'message.updated'] },
};

/** The client every opencode probe uses: the workspace as `x-opencode-directory`, Basic auth when a password is set. */
async function clientFor(baseUrl: string, fetch?: FetchLike, password?: string): Promise<JsonClient> {
  const directory = join(tmpdir(), 'tapedeck-bench', OPENCODE_FOLDER);
  await mkdir(directory, { recursive: true });
  const auth = password ? { authorization: `Basic ${Buffer.from(`opencode:${password}`).toString('base64')}` } : {};
  return new JsonClient(baseUrl, { 'x-opencode-directory': directory, ...auth }, fetch);
}

/** `opencode serve` over HTTP and its /event stream: a text turn, bash allowed once, one rejected, an abort with the permission pending. */
export const opencodeFamily = defineFamily<OpenCodeProbe>({
  id: 'opencode',
  suite: 'opencode-serve',
  summary: 'opencode serve over HTTP and its /event stream (Basic auth from $OPENCODE_SERVER_PASSWORD)',
  help: {
    details: `The opencode probes (a text turn, a bash call allowed once, one rejected, an
abort with the permission pending) run against \`opencode serve\` over HTTP and
its /event stream into <out>/opencode-serve/ (Basic auth from
$OPENCODE_SERVER_PASSWORD for --server; --peer runs the real binary offline).`,
    examples: [
      'bench record --target opencode',
      'bench record --target opencode --peer test/peers/node_modules/opencode-linux-x64/bin/opencode',
    ],
  },
  mockModel: [runCommandRule],
  folder: OPENCODE_FOLDER,
  packs: OPENCODE_PACKS,
  probes: OPENCODE_PROBES,
  apiKeyEnv: 'OPENCODE_SERVER_PASSWORD',
  // 401 is opencode behind its password: the server is there, the probes send the password.
  checkServer: (url) =>
    checkHealthRoute(url, {
      path: '/global/health',
      family: 'opencode serve',
      example: 'http://127.0.0.1:4096',
      accept: (status) => status === 200 || status === 401,
    }),
  simulator: {
    describe: (seed) => `embedded opencode serve simulator (seed ${seed})`,
    start: async (o) => (await import('./simulator/index.js')).startOpenCodeSimulator(simulatorBasics(o)),
  },
  plan: (context, selected) => ({
    folder: OPENCODE_FOLDER,
    probes: selected,
    declare: () => ({ declared: 'SUPPORTED' }),
    observe: async (probe, url) => {
      const client = await clientFor(url, undefined, context.apiKey);
      return observeSafely(() => probe.run(client, turnCeiling(context)));
    },
  }),
  replay: async (recorded, door, pace = 'replay') => {
    const probe = findProbe(OPENCODE_PROBES, recorded.probe, 'opencode');
    return throughDoor(door, async () => {
      const client = await clientFor(door.baseUrl ?? REPLAY_ORIGIN, door.fetch);
      const { observed, reason } = await observeSafely(() => probe.run(client, TURN_MS[pace]));
      return { replayed: reconcile(observed, 'SUPPORTED'), reason };
    });
  },
  peer: opencodePeer,
  drift: { noise: (_variant, { fromSimulator }) => (fromSimulator ? undefined : REAL_SERVER_NOISE) },
});
