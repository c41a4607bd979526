import { loadCassette } from '../../cassette/index.js';
import { reconcile } from '../../manifest/index.js';
import { defineFamily, simulatorBasics, TURN_MS, turnCeiling } from '../family.js';
import { bearer, checkHttpListening, findProbe, observeSafely, REPLAY_ORIGIN, throughDoor } from '../kit/index.js';
import { AgUiClient } from './client.js';
import { parseProbeInputs, resolveInputs } from './inputs.js';
import { AG_UI_MOCK_RULES } from './mock-model.js';
import { agUiEvents } from './packs.js';
import { AG_UI_PROBES, type AgUiProbe } from './probes.js';
import { recordedInputs } from './recorded-inputs.js';

const FOLDER = 'ag-ui';

/** The agent's endpoint as the server's URL gives it: AG-UI lets each server choose its own path. */
function endpointPath(server: string): string {
  const url = new URL(server);
  return `${url.pathname}${url.search}`;
}

/** Servers speaking AG-UI: RunAgentInput POSTed to the agent's endpoint, the run streamed back as SSE events. */
export const agUiFamily = defineFamily<AgUiProbe>({
  id: 'ag-ui',
  suite: 'ag-ui',
  summary: 'AG-UI agent servers: RunAgentInput POSTed, the run streamed as SSE events (a bearer key from $AG_UI_API_KEY)',
  help: {
    details: `The AG-UI probes POST RunAgentInput to the agent's endpoint (the path of
--server; the simulator's is /agent) and read the run's events into
<out>/ag-ui/: a plain run (run), a run that calls the server's own tool
(backend_tool), a run offered a frontend tool that must end with the call
for the client, then a run given its result (frontend_tool), a second run
on the thread sending the first run's messages back (second_run), state
(state) and a malformed RunAgentInput the server must refuse (bad_input).
Whether a server calls a tool or keeps state is up to its model and
prompts: --input FILE gives each probe's message (run, backend_tool,
frontend_tool, second_run, state; forwardedProps for every run), and a
probe whose input brought no tool call or no state reads NOT_APPLICABLE
with the option to give. The cassettes name the ag-ui/events pack.`,
    inputs: "each probe's message (run, backend_tool, frontend_tool, second_run, state) and forwardedProps",
    examples: ['bench record --target ag-ui', 'bench record --target ag-ui --server http://127.0.0.1:8000/agent --input ag-ui-inputs.yaml'],
  },
  folder: FOLDER,
  packs: [agUiEvents],
  probes: AG_UI_PROBES,
  apiKeyEnv: 'AG_UI_API_KEY',
  checkServer: (url) => checkHttpListening(url, 'http://127.0.0.1:8000/agent', `an AG-UI agent (with its endpoint's path)`),
  proxyTarget: (server) => new URL(server).origin,
  simulator: {
    describe: (seed) => `embedded AG-UI simulator (seed ${seed})`,
    start: async (o) => (await import('./simulator/server.js')).startAgUiSimulator(simulatorBasics(o)),
  },
  plan: (context, selected) => {
    const inputs = resolveInputs(parseProbeInputs(context.inputs, '--input'));
    const waitMs = turnCeiling(context);
    return {
      folder: FOLDER,
      probes: selected,
      declare: () => ({ declared: undefined }),
      observe: (probe, proxyUrl) =>
        observeSafely(() =>
          probe.run({
            client: new AgUiClient(`${proxyUrl}${endpointPath(context.server)}`, undefined, bearer(context.apiKey)),
            inputs,
            waitMs,
          }),
        ),
    };
  },
  mockModel: AG_UI_MOCK_RULES,
  replay: async (recorded, door, pace = 'replay') => {
    const probe = findProbe(AG_UI_PROBES, recorded.probe, 'ag-ui');
    const cassette = await loadCassette(recorded.file);
    const path = cassette.interactions[0]?.request.path ?? '/';
    const inputs = resolveInputs(recordedInputs(probe.name, cassette));
    return throughDoor(door, async () => {
      const client = new AgUiClient(`${door.baseUrl ?? REPLAY_ORIGIN}${path}`, door.fetch);
      const { observed, reason } = await observeSafely(() => probe.run({ client, inputs, waitMs: TURN_MS[pace] }));
      return { replayed: reconcile(observed, undefined), reason };
    });
  },
});
