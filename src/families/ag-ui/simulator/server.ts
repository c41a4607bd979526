import type { IncomingMessage, ServerResponse } from 'node:http';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { readText, sendJson, simulatorServer } from '../../../net/http-json.js';
import { listen } from '../../../net/listen.js';
import { SeededIds } from '../../../net/seeded-ids.js';
import type { RunningServer } from '../../family.js';
import { scriptFor } from './script.js';

export interface AgUiSimulatorOptions {
  seed?: number;
  port?: number;
  host?: string;
  latencyMs?: number;
}

/** The simulator's endpoint: AG-UI lets a server choose its own. */
export const SIMULATOR_PATH = '/agent';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Why a body is not RunAgentInput, as a 422 names it, or the parsed input. */
function parseInput(text: string) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'the body is not JSON' };
  }
  const parsed = RunAgentInputSchema.safeParse(value);
  if (parsed.success) return { input: parsed.data };
  const issue = parsed.error.issues[0];
  return { error: `${issue?.path.join('.') || 'body'}: ${issue?.message}` };
}

/**
 * An AG-UI agent at `/agent`, for recording without one: a scripted model that replies, calls its weather tool,
 * calls the tool a client offers, keeps state and remembers the thread's messages; 422 for a body that is not
 * RunAgentInput. Ids come from the seed.
 */
export async function startAgUiSimulator(options: AgUiSimulatorOptions = {}): Promise<RunningServer> {
  const ids = new SeededIds(options.seed ?? 1);
  const open = new Set<ServerResponse>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if ((req.url ?? '').split('?')[0] !== SIMULATOR_PATH) return sendJson(res, 404, { error: `the agent's endpoint is ${SIMULATOR_PATH}` });
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'POST a RunAgentInput' }, { allow: 'POST' });
    const { input, error } = parseInput(await readText(req));
    if (!input) return sendJson(res, 422, { error: `not a RunAgentInput: ${error}` });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    open.add(res);
    for (const event of scriptFor(input, ids)) {
      if (res.destroyed) break;
      if (options.latencyMs) await sleep(options.latencyMs);
      res.write(`data: ${JSON.stringify(event)}\n\n`);
    }
    res.end();
    open.delete(res);
  };
  const server = simulatorServer(handle);
  const { url } = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    url: `${url}${SIMULATOR_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
