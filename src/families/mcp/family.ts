import { loadCassette } from '../../cassette/index.js';
import { reconcile } from '../../manifest/index.js';
import { type DriftNoise, defineFamily, type PlanContext, simulatorBasics, TURN_MS, turnCeiling } from '../family.js';
import { bearer, checkHttpListening, findProbe, observeSafely, REPLAY_ORIGIN, throughDoor } from '../kit/index.js';
import { McpClient } from './client.js';
import { REPLAY_LATE_MS } from './flows.js';
import { mcpStreamableHttp } from './packs.js';
import { declaredFor, MCP_PROBES, type McpProbe, runProbe } from './probes.js';

const FOLDER = 'mcp';
/** The longest a live probe waits for what a server may never send (an update, a log line). */
const LIVE_WAIT_MS = 15_000;

const waitFor = (context: PlanContext) => Math.min(turnCeiling(context), LIVE_WAIT_MS);

/** The endpoint's path: the probes POST to it through the recording proxy, which forwards to the server's origin. */
function endpointPath(server: string): string {
  const url = new URL(server);
  return `${url.pathname === '/' ? '/mcp' : url.pathname}${url.search}`;
}

/** Asks the server what it declares (unrecorded), so a probe it lacks the capability for is declared NOT_APPLICABLE. */
async function capabilitiesOf(context: PlanContext): Promise<Record<string, unknown> | undefined> {
  const client = new McpClient(new URL(endpointPath(context.server), context.server).href, undefined, bearer(context.apiKey));
  const { result } = await client.open();
  if (client.sessionId) await client.end();
  return result.capabilities as Record<string, unknown> | undefined;
}

/**
 * What a real MCP server leaves to chance: how many log lines and updates land in a probe's wait, and the levels it
 * logs at (server-everything draws one of eight at random every 5 s). The simulator's recordings have none of it.
 */
const REAL_SERVER_NOISE: DriftNoise = {
  unordered: [],
  sometimes: [],
  runs: ['notifications/message', 'notifications/resources/updated'],
  racedFields: { 'notifications/message': ['params.level'] },
};

/** MCP servers over Streamable HTTP: the lifecycle, tools, progress and cancellation, resources, prompts, logging, completion, sessions. */
export const mcpFamily = defineFamily<McpProbe>({
  id: 'mcp',
  suite: 'mcp',
  summary: 'MCP servers over Streamable HTTP (a bearer key from $MCP_API_KEY)',
  help: {
    details: `The MCP probes (initialize and capabilities, tools/list, a tool call that
succeeds and one that returns isError, progress on a long-running call, its
cancellation, resources with a subscription, prompts, logging levels,
completion, the session's header, DELETE and a made-up session id) each run
in a session of their own into <out>/mcp/. A capability the server does not
declare in its initialize answer reads NOT_APPLICABLE. The cassettes name
the mcp/streamable-http pack.`,
    examples: ['bench record --target mcp', 'bench record --target mcp --server http://127.0.0.1:3001/mcp'],
  },
  folder: FOLDER,
  packs: [mcpStreamableHttp],
  probes: MCP_PROBES,
  apiKeyEnv: 'MCP_API_KEY',
  checkServer: (url) => checkHttpListening(url, 'http://127.0.0.1:3001/mcp', 'an MCP server over Streamable HTTP'),
  proxyTarget: (server) => new URL(server).origin,
  drift: { noise: (_variant, { fromSimulator }) => (fromSimulator ? undefined : REAL_SERVER_NOISE) },
  simulator: {
    describe: (seed) => `embedded MCP simulator (seed ${seed})`,
    start: async (o) => (await import('./simulator/server.js')).startMcpSimulator(simulatorBasics(o)),
  },
  plan: (context, selected) => {
    let capabilities: Record<string, unknown> | undefined;
    let unknown = false;
    return {
      folder: FOLDER,
      probes: selected,
      ready: async () => {
        // A server that fails this unrecorded question fails the recorded probes too, which say how: until then
        // nothing is known of its capabilities, so none reads NOT_APPLICABLE.
        capabilities = await capabilitiesOf(context).catch(() => {
          unknown = true;
          return undefined;
        });
      },
      declare: (probe) => ({ declared: unknown ? 'SUPPORTED' : declaredFor(probe, capabilities) }),
      observe: (probe, proxyUrl) =>
        observeSafely(
          async () =>
            (await runProbe(probe, { url: `${proxyUrl}${endpointPath(context.server)}`, apiKey: context.apiKey }, waitFor(context)))
              .observation,
        ),
    };
  },
  replay: async (recorded, door, pace = 'replay') => {
    const probe = findProbe(MCP_PROBES, recorded.probe, 'mcp');
    const path = (await loadCassette(recorded.file)).interactions[0]?.request.path ?? '/mcp';
    return throughDoor(door, async () => {
      let declared: ReturnType<typeof declaredFor> | undefined;
      const { observed, reason } = await observeSafely(async () => {
        const run = await runProbe(
          probe,
          { url: `${door.baseUrl ?? REPLAY_ORIGIN}${path}`, fetch: door.fetch },
          TURN_MS[pace],
          REPLAY_LATE_MS,
        );
        declared = declaredFor(probe, run.capabilities);
        return run.observation;
      });
      return { replayed: reconcile(observed, declared), reason };
    });
  },
});
