import { UsageError } from '../../errors.js';
import { reconcile } from '../../manifest/index.js';
import {
  checkHealthRoute,
  findProbe,
  observeSafely,
  REPLAY_ORIGIN,
  type Suite,
  simulatorBasics,
  TURN_MS,
  throughDoor,
  turnCeiling,
} from '../../suite/index.js';
import { fetchCapabilities, type HermesCapabilities, lacks } from './capabilities.js';
import { HermesClient } from './client.js';
import { hermesPeer } from './peer.js';
import { HERMES_PROBES, type HermesProbe } from './probes.js';
import { startHermesSimulator } from './simulator/index.js';

/** Packs for hermes cassettes; each applies only to the stream routes it describes. */
export const HERMES_PACKS = ['openai/chat-completions', 'hermes/responses', 'hermes/runs', 'hermes/session-stream'];

/** The Hermes gateway's probes: chat and Responses streams, runs with clarify and approval, cancel, room grants. */
export const hermesSuite: Suite<HermesProbe> = {
  id: 'hermes-gateway',
  target: 'hermes',
  summary: 'the Hermes gateway probes (live servers need --api-key or $HERMES_API_KEY)',
  folder: 'hermes',
  packs: HERMES_PACKS,
  probes: HERMES_PROBES,
  apiKeyEnv: 'HERMES_API_KEY',
  checkServer: (url) => checkHealthRoute(url, { path: '/health', family: 'a Hermes gateway', example: 'http://127.0.0.1:8642' }),
  simulator: {
    describe: (seed) => `embedded hermes gateway simulator (seed ${seed})`,
    start: (o) => startHermesSimulator({ ...simulatorBasics(o), ...(o.apiKey ? { apiKey: o.apiKey } : {}) }),
  },
  plan: (context, selected) => {
    if (!context.apiKey) throw new UsageError('--server needs --api-key (or HERMES_API_KEY): the gateway refuses requests without its key');
    const apiKey = context.apiKey;
    let capabilities: HermesCapabilities | undefined;
    return {
      folder: 'hermes',
      probes: selected,
      ready: async () => {
        capabilities = await fetchCapabilities(context.server, apiKey);
      },
      declare: (probe) => {
        const missing = capabilities && lacks(capabilities, probe.name);
        return missing ? { declared: 'NOT_APPLICABLE', notApplicable: missing } : { declared: 'SUPPORTED' };
      },
      observe: (probe, url) => observeSafely(() => probe.run(new HermesClient(url, apiKey), turnCeiling(context))),
    };
  },
  // Any API key works against a replay: the replayer matches the redacted header.
  replay: async (recorded, door, pace = 'replay') => {
    const probe = findProbe(HERMES_PROBES, recorded.probe, 'hermes');
    return throughDoor(door, async () => {
      const client = new HermesClient(door.baseUrl ?? REPLAY_ORIGIN, 'replay-key', door.fetch);
      const { observed, reason } = await observeSafely(() => probe.run(client, TURN_MS[pace]));
      return { replayed: reconcile(observed, 'SUPPORTED'), reason };
    });
  },
  peer: hermesPeer,
};
