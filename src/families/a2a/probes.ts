import { type SuiteObservation, supported, unsupported } from '../../manifest/index.js';
import type { StreamEvent } from '../kit/index.js';
import { type A2aClient, type Reply, userMessage } from './client.js';
import type { A2aInputs } from './inputs.js';
import { FINAL_STATES } from './schemas.js';

type Json = Record<string, unknown>;

/** What a probe is given: a client whose card is read, its inputs, how long a task may take. */
export interface ProbeContext {
  client: A2aClient;
  card: Json;
  inputs: A2aInputs;
  waitMs: number;
}

export interface A2aProbe {
  name: string;
  priority: 'P0' | 'P1';
  /** Needs the card to declare streaming: NOT_APPLICABLE otherwise. */
  streaming?: boolean;
  run(ctx: ProbeContext): Promise<SuiteObservation>;
}

const notApplicable = (note: string): SuiteObservation => ({ observed: 'NOT_APPLICABLE', note });
const errorOf = (r: Reply) => r.json.error as { code?: number; message?: string } | undefined;
const resultOf = (r: Reply) => r.json.result as Json | undefined;
const stateOf = (task: Json | undefined) => (task?.status as { state?: string } | undefined)?.state;
const described = (r: Reply) => (errorOf(r) ? `error ${errorOf(r)?.code} ${errorOf(r)?.message ?? ''}`.trim() : `HTTP ${r.status}`);
const isFinal = (state: string | undefined) => (FINAL_STATES as readonly string[]).includes(state ?? '');

async function agentCard(ctx: ProbeContext): Promise<SuiteObservation> {
  if (!ctx.client.endpoint) return unsupported('the agent card names no JSONRPC interface (supportedInterfaces[].protocolBinding)');
  const skills = Array.isArray(ctx.card.skills) ? ctx.card.skills.length : 0;
  const streaming = (ctx.card.capabilities as Json | undefined)?.streaming === true;
  return supported(
    `${String(ctx.card.name)}: ${skills} skills, JSON-RPC at ${new URL(ctx.client.endpoint).pathname}, streaming ${streaming ? 'declared' : 'not declared'}`,
  );
}

/** SendMessage's task (or undefined for a message answer), or the observation that it failed. */
async function sendTask(ctx: ProbeContext, probe: string, text: string, now = false): Promise<Json | SuiteObservation | undefined> {
  const params = { message: userMessage(probe, text), ...(now ? { configuration: { returnImmediately: true } } : {}) };
  const reply = await ctx.client.call('SendMessage', params, `${probe}-send`);
  const result = resultOf(reply);
  if (!result) return unsupported(`SendMessage answered ${described(reply)}`);
  return result.task as Json | undefined;
}
const failed = (v: Json | SuiteObservation | undefined): v is SuiteObservation => v !== undefined && 'observed' in v;

async function sendMessage(ctx: ProbeContext): Promise<SuiteObservation> {
  const task = await sendTask(ctx, 'send_message', ctx.inputs.message);
  if (failed(task)) return task;
  if (!task) return supported('SendMessage answered with a message');
  const artifacts = Array.isArray(task.artifacts) ? task.artifacts.length : 0;
  return supported(`SendMessage answered with a task ${stateOf(task)}, ${artifacts} artifacts`);
}

/** How a stream of StreamResponse events went: counts by kind, and the state it ended in. */
function summary(events: readonly StreamEvent[]): { kinds: string; last: string | undefined; error: string | undefined } {
  const results = events.map((e) => (e.data.result ?? {}) as Json);
  const count = (k: string) => results.filter((r) => r[k] !== undefined).length;
  const lastUpdate = results.findLast((r) => r.statusUpdate !== undefined)?.statusUpdate as Json | undefined;
  const error = events.map((e) => e.data.error as { code?: number } | undefined).find(Boolean);
  return {
    kinds: `${count('task')} task, ${count('statusUpdate')} status updates, ${count('artifactUpdate')} artifact chunks`,
    last: stateOf(lastUpdate) ?? (results.at(-1)?.message ? 'a message' : undefined),
    error: error ? `error ${error.code}` : undefined,
  };
}

async function stream(ctx: ProbeContext): Promise<SuiteObservation> {
  const reader = await ctx.client.stream('SendStreamingMessage', { message: userMessage('stream', ctx.inputs.message) }, 'stream-send');
  await reader.untilEnd(ctx.waitMs);
  if (!reader.ended) reader.close();
  const { kinds, last, error } = summary(reader.events);
  if (error) return unsupported(`the stream answered ${error}`);
  if (!reader.ended) return unsupported(`the stream did not end within ${Math.round(ctx.waitMs / 1000)} s (${kinds})`);
  if (last !== 'a message' && !isFinal(last)) return unsupported(`the stream ended at ${last ?? 'no status'} (${kinds})`);
  return supported(`${kinds}; ended at ${last}`);
}

async function getTask(ctx: ProbeContext): Promise<SuiteObservation> {
  const task = await sendTask(ctx, 'get_task', ctx.inputs.message);
  if (failed(task)) return task;
  if (!task) return notApplicable('SendMessage answered with a message, not a task: no task to get');
  const reply = await ctx.client.call('GetTask', { id: task.id }, 'get_task-get');
  const got = resultOf(reply);
  if (!got) return unsupported(`GetTask answered ${described(reply)}`);
  return got.id === task.id
    ? supported(`GetTask gave the task back, ${stateOf(got)}`)
    : unsupported(`GetTask gave task ${String(got.id)}, not ${String(task.id)}`);
}

async function cancel(ctx: ProbeContext): Promise<SuiteObservation> {
  const task = await sendTask(ctx, 'cancel', ctx.inputs.slowMessage, true);
  if (failed(task)) return task;
  if (!task) return notApplicable('SendMessage answered with a message, not a task: nothing to cancel');
  const reply = await ctx.client.call('CancelTask', { id: task.id }, 'cancel-cancel');
  const result = resultOf(reply);
  if (errorOf(reply)?.code === -32002)
    return notApplicable(
      `the task was ${stateOf(task)} and could no longer be canceled; give cancel.message in --input, a task that takes a while`,
    );
  if (!result) return unsupported(`CancelTask answered ${described(reply)}`);
  return stateOf(result) === 'TASK_STATE_CANCELED'
    ? supported('CancelTask canceled the running task')
    : unsupported(`CancelTask answered with the task ${stateOf(result)}`);
}

async function resubscribe(ctx: ProbeContext): Promise<SuiteObservation> {
  const task = await sendTask(ctx, 'resubscribe', ctx.inputs.slowMessage, true);
  if (failed(task)) return task;
  if (!task) return notApplicable('SendMessage answered with a message, not a task: nothing to subscribe to');
  const reader = await ctx.client.stream('SubscribeToTask', { id: task.id }, 'resubscribe-subscribe');
  const first = await reader.waitFor(() => true, ctx.waitMs);
  if (!first) {
    reader.close();
    return unsupported(`SubscribeToTask sent nothing within ${Math.round(ctx.waitMs / 1000)} s`);
  }
  if (first.data.error) return unsupported(`SubscribeToTask answered error ${(first.data.error as Json).code}`);
  await ctx.client.call('CancelTask', { id: task.id }, 'resubscribe-cancel');
  await reader.untilEnd(ctx.waitMs);
  if (!reader.ended) reader.close();
  const { kinds, last } = summary(reader.events);
  return last === 'TASK_STATE_CANCELED'
    ? supported(`the subscription followed the task to its cancellation (${kinds})`)
    : unsupported(`the subscription ended at ${last ?? 'no status'} (${kinds})`);
}

async function unknownMethod(ctx: ProbeContext): Promise<SuiteObservation> {
  const reply = await ctx.client.call('tapedeck/NoSuchMethod', {}, 'unknown_method-1');
  return errorOf(reply)?.code === -32601
    ? supported('answered -32601 Method not found')
    : unsupported(`answered ${described(reply)}, not -32601`);
}

async function malformed(ctx: ProbeContext): Promise<SuiteObservation> {
  const parse = errorOf(await ctx.client.raw('{"jsonrpc": "2.0", "id": "malformed-1", "method": '))?.code;
  const params = errorOf(await ctx.client.call('SendMessage', { message: 42 }, 'malformed-2'))?.code;
  const right = [parse === -32700, params === -32602];
  const note = `a body that is not JSON answered ${parse ?? 'no error'}, a message that is a number ${params ?? 'no error'}`;
  if (right.every(Boolean)) return supported(`${note}, as JSON-RPC says`);
  return right.some(Boolean)
    ? { observed: 'PARTIAL', note: `${note}; expected -32700 and -32602` }
    : unsupported(`${note}; expected -32700 and -32602`);
}

/** The A2A probes, each with the card read first. */
export const A2A_PROBES: readonly A2aProbe[] = [
  { name: 'agent_card', priority: 'P0', run: agentCard },
  { name: 'send_message', priority: 'P0', run: sendMessage },
  { name: 'stream', priority: 'P0', streaming: true, run: stream },
  { name: 'get_task', priority: 'P1', run: getTask },
  { name: 'cancel', priority: 'P1', run: cancel },
  { name: 'resubscribe', priority: 'P1', streaming: true, run: resubscribe },
  { name: 'unknown_method', priority: 'P1', run: unknownMethod },
  { name: 'malformed', priority: 'P1', run: malformed },
];

/** Runs a probe: the card first (recorded with it), then the probe, or NOT_APPLICABLE where the card says so. */
export async function runProbe(probe: A2aProbe, ctx: Omit<ProbeContext, 'card'>): Promise<SuiteObservation> {
  const { json: card } = await ctx.client.card();
  if (probe.name !== 'agent_card' && !ctx.client.endpoint) return unsupported('the agent card names no JSONRPC interface');
  if (probe.streaming && (card.capabilities as Json | undefined)?.streaming !== true)
    return notApplicable('the agent card declares no streaming capability');
  return probe.run({ ...ctx, card });
}
