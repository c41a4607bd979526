import type { SuiteObservation, Verdict } from '../../manifest/index.js';
import { bearer, type FetchLike } from '../kit/index.js';
import { McpClient } from './client.js';
import {
  badSessionFlow,
  cancelFlow,
  type FlowContext,
  initializeFlow,
  liveLateMs,
  progressFlow,
  sessionFlow,
  toolCallFlow,
  toolErrorFlow,
  toolsListFlow,
} from './flows.js';
import { completionFlow, loggingFlow, promptsFlow, resourcesFlow } from './server-flows.js';

/** A capability a server declares in its `initialize` answer. */
type Capability = 'tools' | 'resources' | 'prompts' | 'logging' | 'completions';

export interface McpProbe {
  name: string;
  priority: 'P0' | 'P1';
  /** The capability without which the probe has nothing to try: NOT_APPLICABLE, from the server's own answer. */
  needs?: Capability;
  flow(ctx: FlowContext): SuiteObservation | Promise<SuiteObservation>;
}

/** The MCP probes, each a session of its own: opened, the flow, ended. */
export const MCP_PROBES: readonly McpProbe[] = [
  { name: 'initialize', priority: 'P0', flow: initializeFlow },
  { name: 'tools_list', priority: 'P0', needs: 'tools', flow: toolsListFlow },
  { name: 'tool_call', priority: 'P0', needs: 'tools', flow: toolCallFlow },
  { name: 'tool_error', priority: 'P1', needs: 'tools', flow: toolErrorFlow },
  { name: 'progress', priority: 'P1', needs: 'tools', flow: progressFlow },
  { name: 'cancel', priority: 'P1', needs: 'tools', flow: cancelFlow },
  { name: 'resources', priority: 'P1', needs: 'resources', flow: resourcesFlow },
  { name: 'prompts', priority: 'P1', needs: 'prompts', flow: promptsFlow },
  { name: 'logging', priority: 'P1', needs: 'logging', flow: loggingFlow },
  { name: 'completion', priority: 'P1', needs: 'completions', flow: completionFlow },
  { name: 'session', priority: 'P0', flow: sessionFlow },
  { name: 'bad_session', priority: 'P1', flow: badSessionFlow },
];

/** What the server's capabilities say of a probe before it runs: NOT_APPLICABLE for one it does not declare. */
export function declaredFor(probe: McpProbe, capabilities: Record<string, unknown> | undefined): Verdict {
  return probe.needs && capabilities?.[probe.needs] === undefined ? 'NOT_APPLICABLE' : 'SUPPORTED';
}

/** Where and how a probe reaches the server: its endpoint, the fetch to use, and a bearer key if any. */
export interface Endpoint {
  url: string;
  fetch?: FetchLike | undefined;
  apiKey?: string | undefined;
}

/** Runs a probe in a session of its own: initialize, the flow (or NOT_APPLICABLE from the capabilities), DELETE. */
export async function runProbe(
  probe: McpProbe,
  endpoint: Endpoint,
  waitMs: number,
  lateMs = liveLateMs(waitMs),
): Promise<{ observation: SuiteObservation; capabilities: Record<string, unknown> | undefined }> {
  const headers = bearer(endpoint.apiKey);
  const client = new McpClient(endpoint.url, endpoint.fetch, headers);
  const initialized = await client.open();
  const capabilities = initialized.result.capabilities as Record<string, unknown> | undefined;
  const observation =
    declaredFor(probe, capabilities) === 'NOT_APPLICABLE'
      ? { observed: 'NOT_APPLICABLE' as const, note: `the server declares no ${probe.needs} capability` }
      : await probe.flow({ client, initialized, waitMs, lateMs });
  // The session probe ends its own session; every other leaves the server as it found it.
  if (probe.name !== 'session' && client.sessionId) await client.end();
  return { observation, capabilities };
}
