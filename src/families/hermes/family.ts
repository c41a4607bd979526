import { UsageError } from '../../errors.js';
import { reconcile } from '../../manifest/index.js';
import { defineFamily, simulatorBasics, TURN_MS, turnCeiling } from '../family.js';
import { checkHealthRoute, findProbe, observeSafely, REPLAY_ORIGIN, throughDoor } from '../kit/index.js';
import { fetchCapabilities, type HermesCapabilities, lacks } from './capabilities.js';
import { HermesClient } from './client.js';
import { HERMES_MOCK_RULES } from './mock-model.js';
import { hermesResponses, openaiChatCompletions, openaiResponses } from './openai-packs.js';
import { hermesRuns, hermesSessionStream } from './packs.js';
import { hermesPeer } from './peer.js';
import { HERMES_PROBES, type HermesProbe } from './probes.js';

/** Packs for hermes cassettes; each applies only to the stream routes it describes. */
export const HERMES_PACKS = [openaiChatCompletions, hermesResponses, hermesRuns, hermesSessionStream];

/** The Hermes gateway's probes: chat and Responses streams, runs with clarify and approval, cancel, room grants. */
export const hermesFamily = defineFamily<HermesProbe>({
  id: 'hermes',
  suite: 'hermes-gateway',
  summary: 'the Hermes gateway probes (live servers need --api-key or $HERMES_API_KEY)',
  help: {
    details: `The gateway probes (chat stream with reasoning, Responses stream, idempotent
retry, clarify, approval, a failing tool, a run cancelled from another
transport, a revoked room grant) are recorded into <out>/hermes/ from the
embedded Hermes gateway simulator, from --server with --api-key, or from
--peer, the hermes-agent gateway's entry point (into <out>/hermes-real/).`,
    examples: ['bench record --target hermes', 'bench record --target hermes --server http://127.0.0.1:8642 --api-key "$HERMES_API_KEY"'],
  },
  folder: 'hermes',
  // The official Responses pack too, for recordings that name it and bench verify's choice by traffic; in the order
  // verify has always tried them. A recording names HERMES_PACKS (its plan says so).
  packs: [hermesSessionStream, hermesRuns, openaiResponses, hermesResponses, openaiChatCompletions],
  mockModel: HERMES_MOCK_RULES,
  probes: HERMES_PROBES,
  apiKeyEnv: 'HERMES_API_KEY',
  checkServer: (url) => checkHealthRoute(url, { path: '/health', family: 'a Hermes gateway', example: 'http://127.0.0.1:8642' }),
  simulator: {
    describe: (seed) => `embedded hermes gateway simulator (seed ${seed})`,
    start: async (o) => {
      if (o.apiKey !== undefined && o.apiKey.length < 16)
        throw new UsageError('--api-key must be at least 16 characters, as the real gateway requires');
      const { startHermesSimulator } = await import('./simulator/index.js');
      return startHermesSimulator({ ...simulatorBasics(o), ...(o.apiKey ? { apiKey: o.apiKey } : {}) });
    },
  },
  plan: (context, selected) => {
    if (!context.apiKey) throw new UsageError('--server needs --api-key (or HERMES_API_KEY): the gateway refuses requests without its key');
    const apiKey = context.apiKey;
    let capabilities: HermesCapabilities | undefined;
    return {
      folder: 'hermes',
      probes: selected,
      packs: HERMES_PACKS,
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
});
