import { unsupported as no, supported as ok, type SuiteObservation } from '../../manifest/observation.js';
import type { StreamReader } from '../kit/index.js';
import type { McpClient, McpMessage } from './client.js';

/** What a flow is given: the open session's client, what `initialize` answered, and how long it may wait. */
export interface FlowContext {
  client: McpClient;
  initialized: { result: McpMessage; initializedStatus: number };
  waitMs: number;
  /** How long a cancelled call's stream is watched for a late result. */
  lateMs: number;
}

/**
 * The late-result window of a replay. A replay serves what was recorded at once, so a late result it holds comes
 * well inside this; under realtime pacing one that comes later changes the note's wording, never the verdict.
 */
export const REPLAY_LATE_MS = 500;

/** The late-result window of a live run: a quarter of the turn, at most 3 s. */
export const liveLateMs = (waitMs: number): number => Math.min(waitMs / 4, 3000);

const na = (note: string): SuiteObservation => ({ observed: 'NOT_APPLICABLE', note });
const resultOf = (m: McpMessage | undefined) => m?.result as Record<string, unknown> | undefined;
const errorOf = (m: McpMessage | undefined) => m?.error as { code?: number; message?: string } | undefined;

type Tool = { name: string; inputSchema?: { type?: string; required?: string[]; properties?: Record<string, unknown> } };

export async function tools(client: McpClient): Promise<Tool[]> {
  return ((resultOf((await client.request('tools/list')).response)?.tools ?? []) as Tool[]).filter((t) => typeof t?.name === 'string');
}

/** The session the probes open: a supported version, what the server is, its capabilities, and `initialized` taken. */
export function initializeFlow({ client, initialized }: FlowContext): SuiteObservation {
  const { result, initializedStatus } = initialized;
  const info = result.serverInfo as { name?: string; version?: string } | undefined;
  if (typeof result.protocolVersion !== 'string') return no('initialize answered no protocolVersion');
  if (typeof result.capabilities !== 'object' || result.capabilities === null) return no('initialize answered no capabilities');
  if (initializedStatus !== 202 && initializedStatus !== 200) return no(`notifications/initialized answered ${initializedStatus}, not 202`);
  const caps =
    Object.keys(result.capabilities as object)
      .sort()
      .join(', ') || 'none';
  const session = client.sessionId ? 'a session id issued' : 'no session id (stateless)';
  return ok(`${info?.name ?? '?'} ${info?.version ?? ''} speaks ${result.protocolVersion}; capabilities ${caps}; ${session}`);
}

export async function toolsListFlow({ client }: FlowContext): Promise<SuiteObservation> {
  const list = await tools(client);
  const bad = list.find((t) => t.inputSchema?.type !== 'object');
  if (list.length === 0) return no('tools/list listed no tool, though the server declares tools');
  if (bad) return no(`tool ${bad.name}: its inputSchema is not an object schema`);
  return ok(`${list.length} tools, each with an object input schema: ${list.map((t) => t.name).join(', ')}`);
}

/** The tool a probe can call: `echo` with a message, else the first tool that requires nothing. */
function callable(list: Tool[]): { name: string; args: Record<string, unknown> } | undefined {
  if (list.some((t) => t.name === 'echo')) return { name: 'echo', args: { message: 'tapedeck' } };
  const free = list.find((t) => (t.inputSchema?.required ?? []).length === 0);
  return free ? { name: free.name, args: {} } : undefined;
}

export async function toolCallFlow({ client }: FlowContext): Promise<SuiteObservation> {
  const tool = callable(await tools(client));
  if (!tool) return na('no tool the probe can call without guessing its arguments');
  const reply = await client.request('tools/call', { name: tool.name, arguments: tool.args });
  const result = resultOf(reply.response);
  if (!result)
    return no(`tools/call ${tool.name} answered no result${errorOf(reply.response) ? `: ${errorOf(reply.response)?.message}` : ''}`);
  if (result.isError === true) return no(`tools/call ${tool.name} returned isError`);
  return Array.isArray(result.content)
    ? ok(`tools/call ${tool.name}: ${result.content.length} content blocks`)
    : no('a result with no content list');
}

export async function toolErrorFlow({ client }: FlowContext): Promise<SuiteObservation> {
  const tool = (await tools(client)).find((t) => (t.inputSchema?.required ?? []).length > 0);
  if (!tool) return na('no tool requires an argument: nothing the probe can call wrongly');
  const reply = await client.request('tools/call', { name: tool.name, arguments: {} });
  if (resultOf(reply.response)?.isError === true) return ok(`tools/call ${tool.name} without its arguments returned isError`);
  const error = errorOf(reply.response);
  if (error)
    return no(`tools/call ${tool.name} without its arguments answered a protocol error (${error.code}) instead of a result with isError`);
  return no(`tools/call ${tool.name} without its arguments succeeded`);
}

const progressOf = (m: McpMessage) => (m.params as { progress?: number } | undefined)?.progress;

/** The server's long-running tool: progress asked for with a token. */
async function longRunning(client: McpClient) {
  return (await tools(client)).find((t) => /long.?running/i.test(t.name));
}

export async function progressFlow({ client, waitMs }: FlowContext): Promise<SuiteObservation> {
  const tool = await longRunning(client);
  if (!tool) return na('no long-running tool to ask progress of');
  const params = { name: tool.name, arguments: { duration: 1, steps: 4 }, _meta: { progressToken: 'tapedeck-progress' } };
  const reply = await client.request('tools/call', params, { waitMs });
  const progress = reply.messages.filter((m) => m.method === 'notifications/progress');
  if (!resultOf(reply.response)) return no(`${tool.name} answered no result in ${waitMs} ms`);
  if (progress.length === 0) return no(`no progress notification on ${tool.name}'s own stream before its result`);
  return ok(
    `${progress.length} progress notifications (${progress.map(progressOf).join(', ')}) before the result, on the call's own stream`,
  );
}

export async function cancelFlow({ client, waitMs, lateMs }: FlowContext): Promise<SuiteObservation> {
  const tool = await longRunning(client);
  if (!tool) return na('no long-running tool to cancel');
  const sent = await client.send('tools/call', {
    name: tool.name,
    arguments: { duration: 2, steps: 4 },
    _meta: { progressToken: 'tapedeck-cancel' },
  });
  const stream = sent.stream as StreamReader | undefined;
  if (!stream) return no(`${tool.name} answered at once, as JSON: nothing to cancel`);
  const started = await stream.waitFor((e) => e.data.method === 'notifications/progress', waitMs);
  if (!started) return no(`${tool.name} sent no progress to cancel after`);
  const status = await client.notify('notifications/cancelled', { requestId: sent.id, reason: 'tapedeck probe' });
  if (status !== 202 && status !== 200) return no(`notifications/cancelled answered ${status}, not 202`);
  // A server may hold the cancelled call's stream open (server-everything does): wait a while for a late result.
  await stream.untilEnd(lateMs);
  stream.close();
  const results = stream.events.filter((e) => e.data.id === sent.id && e.data.method === undefined).length;
  if (results > 1) return no(`${results} results after the cancellation`);
  return ok(results === 0 ? 'cancelled: no result came after' : 'cancelled: the one result already under way came, and no other');
}

export async function sessionFlow({ client }: FlowContext): Promise<SuiteObservation> {
  const id = client.sessionId;
  if (!id) return na('the server issues no session id (a stateless server): nothing to end');
  const without = await client.fetch(client.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 90, method: 'ping' }),
  });
  await without.arrayBuffer();
  const ended = await client.end();
  const after = await client.request('ping');
  const faults = [
    ...(without.status === 400 ? [] : [`a request without Mcp-Session-Id answered ${without.status}, not 400`]),
    ...(ended === 200 || ended === 204 ? [] : [`DELETE answered ${ended}`]),
    ...(after.status === 404 ? [] : [`a request after DELETE answered ${after.status}, not 404`]),
  ];
  return faults.length
    ? no(faults.join('; '))
    : ok('Mcp-Session-Id required after initialize; DELETE ended the session; the next request answered 404');
}

export async function badSessionFlow({ client }: FlowContext): Promise<SuiteObservation> {
  const reply = await client.request('ping', undefined, { headers: { 'mcp-session-id': 'tapedeck-no-such-session' } });
  return reply.status === 404 ? ok('a made-up session id answered 404') : no(`a made-up session id answered ${reply.status}, not 404`);
}
