import { loadCassette } from '../../cassette/index.js';
import { reconcile } from '../../manifest/index.js';
import { defineFamily, simulatorBasics, TURN_MS, turnCeiling } from '../family.js';
import { bearer, checkHttpListening, findProbe, observeSafely, REPLAY_ORIGIN, throughDoor } from '../kit/index.js';
import { A2aClient } from './client.js';
import { recordedInputs, resolveInputs } from './inputs.js';
import { a2aJsonRpc } from './packs.js';
import { A2A_PROBES, type A2aProbe, runProbe } from './probes.js';

const FOLDER = 'a2a';

/** The base the card is read from: the server URL as given (its path too, for an agent mounted under one). */
const baseOf = (server: string, origin: string) => `${origin}${new URL(server).pathname.replace(/\/$/, '')}`;

/** A2A agents over JSON-RPC (protocol 1.0, as the official SDKs 1.3.0 speak it). */
export const a2aFamily = defineFamily<A2aProbe>({
  id: 'a2a',
  suite: 'a2a',
  summary: 'A2A agents over JSON-RPC, protocol 1.0 (a bearer key from $A2A_API_KEY)',
  help: {
    details: `The A2A probes read the agent card at <server>/.well-known/agent-card.json,
then call the JSON-RPC endpoint it names (A2A-Version: 1.0), each probe into
<out>/a2a/: the card (agent_card), SendMessage (send_message), a streamed
message (stream), GetTask of a task (get_task), CancelTask of a running task
(cancel), SubscribeToTask to a running task's stream (resubscribe), an
unknown method (unknown_method: -32601) and malformed requests (malformed:
-32700, -32602). A probe that needs streaming reads NOT_APPLICABLE when the
card does not declare it. --input FILE gives the message and the slow_message
a task takes a while over. The cassettes name the a2a/jsonrpc pack.`,
    inputs: 'the message and the slow_message of a task to cancel',
    examples: ['bench record --target a2a', 'bench record --target a2a --server http://127.0.0.1:41241'],
  },
  folder: FOLDER,
  packs: [a2aJsonRpc],
  probes: A2A_PROBES,
  apiKeyEnv: 'A2A_API_KEY',
  checkServer: (url) => checkHttpListening(url, 'http://127.0.0.1:41241', 'an A2A agent (the URL its card is under)'),
  proxyTarget: (server) => new URL(server).origin,
  simulator: {
    describe: (seed) => `embedded A2A simulator (seed ${seed})`,
    start: async (o) => (await import('./simulator/server.js')).startA2aSimulator(simulatorBasics(o)),
  },
  plan: (context, selected) => {
    const inputs = resolveInputs(context.inputs);
    const waitMs = turnCeiling(context);
    return {
      folder: FOLDER,
      probes: selected,
      declare: () => ({ declared: undefined }),
      observe: (probe, proxyUrl) =>
        observeSafely(() =>
          runProbe(probe, { client: new A2aClient(baseOf(context.server, proxyUrl), undefined, bearer(context.apiKey)), inputs, waitMs }),
        ),
    };
  },
  replay: async (recorded, door, pace = 'replay') => {
    const probe = findProbe(A2A_PROBES, recorded.probe, 'a2a');
    const cassette = await loadCassette(recorded.file);
    const cardPath = cassette.interactions[0]?.request.path ?? '/.well-known/agent-card.json';
    const base = `${door.baseUrl ?? REPLAY_ORIGIN}${cardPath.replace(/\/\.well-known\/agent-card\.json$/, '')}`;
    return throughDoor(door, async () => {
      const client = new A2aClient(base, door.fetch);
      const { observed, reason } = await observeSafely(() =>
        runProbe(probe, { client, inputs: recordedInputs(probe.name, cassette), waitMs: TURN_MS[pace] }),
      );
      return { replayed: reconcile(observed, undefined), reason };
    });
  },
});
