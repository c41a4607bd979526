import { unsupported as no, supported as ok, type SuiteObservation } from '../../manifest/observation.js';
import { listen, type McpMessage } from './client.js';
import { type FlowContext, tools } from './flows.js';
import { LEVELS } from './levels.js';

const resultOf = (m: McpMessage | undefined) => m?.result as Record<string, unknown> | undefined;
const partial = (note: string): SuiteObservation => ({ observed: 'PARTIAL', note });
const na = (note: string): SuiteObservation => ({ observed: 'NOT_APPLICABLE', note });
const capability = (ctx: FlowContext, name: string) =>
  (ctx.initialized.result.capabilities as Record<string, Record<string, unknown> | undefined> | undefined)?.[name];

/**
 * Some servers send updates or log lines only once a tool of theirs starts them (server-everything's
 * toggle-subscriber-updates and toggle-simulated-logging): such a tool is called for the probe's wait and again after.
 */
async function startedByTool(ctx: FlowContext, pattern: RegExp): Promise<() => Promise<void>> {
  const tool = capability(ctx, 'tools')
    ? (await tools(ctx.client)).find((t) => pattern.test(t.name) && (t.inputSchema?.required ?? []).length === 0)
    : undefined;
  const toggle = async () => {
    if (tool) await ctx.client.request('tools/call', { name: tool.name, arguments: {} });
  };
  await toggle();
  return toggle;
}

type Prompt = { name: string; arguments?: { name: string; required?: boolean }[] };

export async function resourcesFlow(ctx: FlowContext): Promise<SuiteObservation> {
  const { client, waitMs } = ctx;
  const resources = (resultOf((await client.request('resources/list')).response)?.resources ?? []) as { uri: string }[];
  const first = resources[0];
  if (!first) return na('resources/list listed no resource');
  const read = resultOf((await client.request('resources/read', { uri: first.uri })).response);
  const contents = (read?.contents ?? []) as { uri?: string }[];
  if (contents[0]?.uri !== first.uri) return no(`resources/read ${first.uri} answered no contents for it`);
  if (capability(ctx, 'resources')?.subscribe !== true)
    return ok(`${resources.length} resources listed; ${first.uri} read (no subscribe capability)`);
  const stream = await listen(client);
  if (typeof stream === 'number') return partial(`read ${first.uri}, but the GET stream was refused with ${stream}: no updates to hear`);
  const subscribed = await client.request('resources/subscribe', { uri: first.uri });
  const stop = await startedByTool(ctx, /toggle.*(subscri|resource)/i);
  const updated = await stream.waitFor(
    (e) => e.data.method === 'notifications/resources/updated' && (e.data.params as { uri?: string })?.uri === first.uri,
    waitMs,
  );
  await stop();
  stream.close();
  if (!resultOf(subscribed.response)) return no(`resources/subscribe ${first.uri} answered no result`);
  return updated
    ? ok(`${first.uri} listed, read, subscribed, and its update came on the GET stream`)
    : partial(`${first.uri} subscribed, but no resources/updated came in ${waitMs} ms`);
}

export async function promptsFlow({ client }: FlowContext): Promise<SuiteObservation> {
  const prompts = (resultOf((await client.request('prompts/list')).response)?.prompts ?? []) as Prompt[];
  const prompt = prompts.find((p) => !(p.arguments ?? []).some((a) => a.required));
  if (!prompt) return na(prompts.length ? 'every prompt requires arguments the probe cannot guess' : 'prompts/list listed no prompt');
  const got = resultOf((await client.request('prompts/get', { name: prompt.name })).response);
  const messages = (got?.messages ?? []) as unknown[];
  return messages.length
    ? ok(`${prompts.length} prompts; ${prompt.name} gave ${messages.length} messages`)
    : no(`prompts/get ${prompt.name} gave no messages`);
}

/**
 * The level the probe sets: low enough that a server logging at levels of its own choosing (server-everything picks
 * one of eight at random every 5 s) nearly always sends something to judge within the wait, high enough that a
 * debug message after it is a fault.
 */
const SET_LEVEL = 'info';

export async function loggingFlow(ctx: FlowContext): Promise<SuiteObservation> {
  const { client, waitMs } = ctx;
  const stream = await listen(client);
  if (typeof stream === 'number') return no(`the GET stream was refused with ${stream}: log messages have nowhere to go`);
  const set = await client.request('logging/setLevel', { level: SET_LEVEL });
  if (!resultOf(set.response)) {
    stream.close();
    return no(
      `logging/setLevel answered no result${set.response?.error ? `: ${(set.response.error as { message?: string }).message}` : ''}`,
    );
  }
  const stop = await startedByTool(ctx, /toggle.*log/i);
  await stream.waitFor((e) => e.data.method === 'notifications/message', waitMs);
  await stop();
  await stream.settle(200);
  stream.close();
  const levels = stream.events
    .filter((e) => e.data.method === 'notifications/message')
    .map((e) => (e.data.params as { level?: string })?.level ?? '');
  const rank = (l: string) => (LEVELS as readonly string[]).indexOf(l);
  const below = levels.filter((l) => rank(l) < rank(SET_LEVEL));
  if (below.length) return no(`after setLevel ${SET_LEVEL}, messages at ${[...new Set(below)].join(', ')} still came`);
  return ok(
    levels.length
      ? `setLevel ${SET_LEVEL}: ${levels.length} messages, none below ${SET_LEVEL}`
      : `setLevel ${SET_LEVEL} answered; no message came to judge the level by`,
  );
}

export async function completionFlow({ client }: FlowContext): Promise<SuiteObservation> {
  const prompts = (resultOf((await client.request('prompts/list')).response)?.prompts ?? []) as Prompt[];
  const prompt = prompts.find((p) => (p.arguments ?? []).length > 0);
  const argument = prompt?.arguments?.[0];
  if (!prompt || !argument) return na('no prompt argument to complete');
  const reply = await client.request('completion/complete', {
    ref: { type: 'ref/prompt', name: prompt.name },
    argument: { name: argument.name, value: '' },
  });
  const values = (resultOf(reply.response)?.completion as { values?: unknown } | undefined)?.values;
  return Array.isArray(values)
    ? ok(`completion of ${prompt.name}.${argument.name}: ${values.length} values`)
    : no('completion/complete answered no values');
}
