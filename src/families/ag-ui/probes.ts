import { type SuiteObservation, supported, unsupported } from '../../manifest/index.js';
import { ServerResponseError, type StreamEvent } from '../kit/index.js';
import { type AgUiClient, type Message, messagesOf, ofType, type Run, replyText, runInput, userMessage } from './client.js';
import type { ResolvedInputs } from './inputs.js';

/** What a probe is given: the client on the agent's endpoint, its inputs, and how long a run may take. */
export interface ProbeContext {
  client: AgUiClient;
  inputs: ResolvedInputs;
  waitMs: number;
}

export interface AgUiProbe {
  name: string;
  priority: 'P0' | 'P1';
  run(ctx: ProbeContext): Promise<SuiteObservation>;
}

const notApplicable = (note: string): SuiteObservation => ({ observed: 'NOT_APPLICABLE', note });
const str = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** Why a run did not finish (RUN_ERROR, no terminal event, the wait ran out), or undefined when it did. */
function unfinished(run: Run, waitMs: number, which = 'the run'): SuiteObservation | undefined {
  const last = run.events.at(-1);
  if (last?.type === 'RUN_FINISHED') return undefined;
  const error = run.events.find((e) => e.type === 'RUN_ERROR');
  if (error) return unsupported(`${which} failed: RUN_ERROR ${str(error.data.message)}`);
  if (!run.ended) return unsupported(`${which} sent no RUN_FINISHED within ${Math.round(waitMs / 1000)} s`);
  return unsupported(`${which}'s stream ended ${last ? `after ${last.type}` : 'empty'}, without RUN_FINISHED or RUN_ERROR`);
}

/** One run of a probe: the input built from its messages, sent, read to the end. */
function send(ctx: ProbeContext, probe: string, n: number, messages: Message[], extra: { tools?: unknown[]; state?: unknown } = {}) {
  return ctx.client.run(runInput(probe, n, { messages, forwardedProps: ctx.inputs.forwardedProps, ...extra }), ctx.waitMs);
}

const callsOf = (events: readonly StreamEvent[]) => ofType(events, 'TOOL_CALL_START').map((e) => str(e.data.toolCallName));

async function plainRun(ctx: ProbeContext): Promise<SuiteObservation> {
  const run = await send(ctx, 'run', 1, [userMessage('run', 1, ctx.inputs.run.message)]);
  const bad = unfinished(run, ctx.waitMs);
  if (bad) return bad;
  const text = replyText(run.events);
  return supported(`RUN_FINISHED after ${run.events.length} events${text ? `; a reply of ${text.length} characters` : ', with no text'}`);
}

async function backendTool(ctx: ProbeContext): Promise<SuiteObservation> {
  const run = await send(ctx, 'backend_tool', 1, [userMessage('backend_tool', 1, ctx.inputs.backendTool.message)]);
  const bad = unfinished(run, ctx.waitMs);
  if (bad) return bad;
  const calls = callsOf(run.events);
  if (calls.length === 0)
    return notApplicable(
      `the server called no tool for ${JSON.stringify(ctx.inputs.backendTool.message)}; give backend_tool.message in --input, a task its own tools do`,
    );
  const results = ofType(run.events, 'TOOL_CALL_RESULT').length;
  return results > 0
    ? supported(`called ${calls.join(', ')} and streamed ${results} TOOL_CALL_RESULT`)
    : { observed: 'PARTIAL', note: `called ${calls.join(', ')} but streamed no TOOL_CALL_RESULT` };
}

async function frontendTool(ctx: ProbeContext): Promise<SuiteObservation> {
  const { message, tool, result } = ctx.inputs.frontendTool;
  const user = userMessage('frontend_tool', 1, message);
  const first = await send(ctx, 'frontend_tool', 1, [user], { tools: [tool] });
  const bad = unfinished(first, ctx.waitMs);
  if (bad) return bad;
  const call = ofType(first.events, 'TOOL_CALL_START').find((e) => e.data.toolCallName === tool.name);
  if (!call)
    return notApplicable(
      `the server made no call of the offered ${tool.name} for ${JSON.stringify(message)}; give frontend_tool.message (and tool) in --input`,
    );
  const callId = str(call.data.toolCallId);
  if (ofType(first.events, 'TOOL_CALL_RESULT').some((e) => e.data.toolCallId === callId))
    return unsupported(`the server answered the client's own tool ${tool.name} itself (TOOL_CALL_RESULT for ${callId})`);
  const answer: Message = { id: `msg-frontend_tool-tool-1`, role: 'tool', toolCallId: callId, content: result };
  const second = await send(ctx, 'frontend_tool', 2, [user, ...messagesOf(first.events), answer], { tools: [tool] });
  const after = unfinished(second, ctx.waitMs, 'the run given the tool result');
  return after ?? supported(`the run ended with a call of ${tool.name} for the client; the next run took its result and finished`);
}

async function secondRun(ctx: ProbeContext): Promise<SuiteObservation> {
  const { message, followUp } = ctx.inputs.secondRun;
  const user = userMessage('second_run', 1, message);
  const first = await send(ctx, 'second_run', 1, [user]);
  const bad = unfinished(first, ctx.waitMs, 'the first run');
  if (bad) return bad;
  const history = [user, ...messagesOf(first.events), userMessage('second_run', 2, followUp)];
  const second = await send(ctx, 'second_run', 2, history);
  return (
    unfinished(second, ctx.waitMs, 'the second run') ??
    supported(
      `the second run on the thread took ${history.length} messages back and finished; a reply of ${replyText(second.events).length} characters`,
    )
  );
}

async function stateRun(ctx: ProbeContext): Promise<SuiteObservation> {
  const { message, state } = ctx.inputs.state;
  const run = await send(ctx, 'state', 1, [userMessage('state', 1, message)], { state });
  const bad = unfinished(run, ctx.waitMs);
  if (bad) return bad;
  const snapshots = ofType(run.events, 'STATE_SNAPSHOT').length;
  const deltas = ofType(run.events, 'STATE_DELTA').length;
  if (snapshots + deltas === 0)
    return notApplicable(`the server sent no state for ${JSON.stringify(message)}; give state.message (and state.state) in --input`);
  return supported(`${snapshots} STATE_SNAPSHOT and ${deltas} STATE_DELTA`);
}

/** RunAgentInput with a number for a thread id and a string for the messages: a server must refuse it. */
const MALFORMED_INPUT = '{"threadId":42,"runId":"run-bad_input-1","messages":"hello"}';

async function badInput(ctx: ProbeContext): Promise<SuiteObservation> {
  const res = await ctx.client.post(MALFORMED_INPUT);
  const body = await res.text();
  // A gateway's error (the recording proxy's when the server is down) says nothing of how the server judges input.
  if (res.status >= 502 && res.status <= 504) throw new ServerResponseError(res.status, `POST ${new URL(ctx.client.url).pathname}`, body);
  if (res.status >= 400 && res.status < 500) return supported(`refused with ${res.status}`);
  if (res.status >= 500) return unsupported(`answered ${res.status}, a server error, not a refusal of the input (4xx)`);
  return body.includes('"RUN_ERROR"')
    ? supported(`answered ${res.status} with a RUN_ERROR`)
    : unsupported(`accepted a malformed RunAgentInput (threadId a number, messages a string) with ${res.status}`);
}

/** The AG-UI probes, each its own thread. */
export const AG_UI_PROBES: readonly AgUiProbe[] = [
  { name: 'run', priority: 'P0', run: plainRun },
  { name: 'backend_tool', priority: 'P0', run: backendTool },
  { name: 'frontend_tool', priority: 'P0', run: frontendTool },
  { name: 'second_run', priority: 'P1', run: secondRun },
  { name: 'state', priority: 'P1', run: stateRun },
  { name: 'bad_input', priority: 'P1', run: badInput },
];
