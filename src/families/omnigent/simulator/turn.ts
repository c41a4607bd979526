import { setTimeout as sleep } from 'node:timers/promises';
import type { SeededIds } from '../../../net/seeded-ids.js';
import { scriptFor } from './model.js';
import type { PolicyDecision } from './policies.js';
import { type ActiveTurn, flatItem, newItem, type Session, type StoredItem } from './state.js';

export interface TurnOptions {
  ids: SeededIds;
  /** Pause between consecutive events, in ms: vendor-like pacing. */
  stepMs: number;
  /** The vendor hook cannot enforce policies (fail-open), as a terminal ensure may report. */
  policyHookDisabled: boolean;
  /** Milliseconds from publishing an elicitation to parking on it; 0 parks first. */
  parkAfterAskMs: number;
}

// An interrupt must land while the vendor is still "working": hold long turns open.
const LONG_TURN_MS = 20_000;
// What one model call costs in the simulator: tokens, and dollars at its price.
const CALL_TOKENS = 1830;
const CALL_COST_USD = 0.0123;
// Harnesses whose session.status edges come from a PTY watcher and flap mid-turn.
const KEEPS_RUNNING = new Set(['codex-native', 'antigravity-native']);

/**
 * Plays one native-tui turn on the session stream, in the order the real
 * server shows it: the executor's in_progress/completed first (before any vendor
 * output), then the forwarder's consumed input, status edges, output items and usage.
 */
export async function runNativeTurn(session: Session, prompt: string, pendingId: string, options: TurnOptions): Promise<void> {
  const { ids, stepMs } = options;
  const harness = session.harness;
  const model = `${harness.id}-ui`;
  const responseId = `resp_${ids.hex(24)}`;
  let wake = () => {};
  const turn: ActiveTurn = { responseId, interrupted: false, wake: () => wake(), elicitations: new Map() };
  session.turn = turn;
  session.status = 'running';
  const publish = session.stream.publish.bind(session.stream);
  const step = () => sleep(stepMs);
  /** Waits up to `ms`, or less when an interrupt or an answer arrives. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const emitItem = (item: StoredItem) => {
    session.items.push(item);
    publish('response.output_item.done', { item: flatItem(item) });
  };
  const status = (value: string) =>
    publish('session.status', {
      conversation_id: session.id,
      status: value,
      response_id: null,
      error: null,
      background_task_count: null,
      blocked_on: null,
    });
  const response = (state: string) => ({
    id: responseId,
    object: 'response',
    created_at: ids.now(),
    status: state,
    model,
    completed_at: null,
    error: null,
    usage: null,
  });

  let modelCalls = 0;
  /**
   * The usage of a priced vendor. The reference reports it once a turn; the
   * real codex-native path (0.19.1) once per model call, the last of a tool
   * turn without its context figures, each with the cost by model.
   */
  const reportUsage = (withContext: boolean) => {
    if (!harness.reportsCost) return;
    modelCalls += 1;
    session.lastTotalTokens = (session.lastTotalTokens ?? 0) + CALL_TOKENS;
    session.totalCostUsd = Math.round(((session.totalCostUsd ?? 0) + CALL_COST_USD) * 1e4) / 1e4;
    if (harness.trace === 'reference') {
      publish('session.usage', {
        conversation_id: session.id,
        context_tokens: session.lastTotalTokens,
        context_window: 200_000,
        total_cost_usd: session.totalCostUsd,
      });
      return;
    }
    // Seven tenths of a call's tokens are its input.
    const input = (session.lastTotalTokens * 7) / 10;
    publish('session.usage', {
      conversation_id: session.id,
      context_tokens: withContext ? CALL_TOKENS : null,
      context_window: withContext ? 258_400 : null,
      total_cost_usd: session.totalCostUsd,
      // Keyed by the model the bench's provider config names.
      usage_by_model: {
        'mock-model': {
          input_tokens: input,
          output_tokens: session.lastTotalTokens - input,
          total_tokens: session.lastTotalTokens,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: null,
          total_cost_usd: session.totalCostUsd,
        },
      },
    });
  };

  const script = scriptFor(prompt);
  const mutator = session.stream.mutator;
  if (mutator) mutator.turnKind = script.kind;
  // The real codex-native turn (0.19.1) goes running as the message is posted, before the executor's in_progress;
  // the reference's trace (in_progress, completed, consumed, then running) stands for the others, which no real server here runs.
  const runningFirst = harness.trace === 'codex-real';
  if (runningFirst) status('running');
  publish('response.in_progress', { sequence_number: 1, response: response('in_progress') });
  await step();
  publish('response.completed', { sequence_number: 2, response: response('completed') });
  await step();
  if (harness.lazyChat && session.externalSessionId === null) session.externalSessionId = `chat_${ids.hex(16)}`;
  const content = [{ type: 'input_text', text: prompt }];
  const userItem = newItem(ids, 'message', null, { role: 'user', content });
  session.items.push(userItem);
  publish('session.input.consumed', {
    data: { item_id: userItem.id, type: 'message', data: { role: 'user', content }, created_by: null, cleared_pending_id: pendingId },
  });
  await step();
  if (!runningFirst) status('running');
  const terminalId = session.terminals[0]?.id ?? null;
  publish('session.terminal.activity', { session_id: session.id, terminal_id: terminalId });
  await step();

  const assistant = (text: string, extra: Record<string, unknown> = {}) =>
    newItem(ids, 'message', responseId, { role: 'assistant', content: [{ type: 'output_text', text }], model, ...extra });

  if (script.kind === 'reply') {
    // The real codex TUI (0.19.1) streams even a one-word reply as a delta before its item.
    if (runningFirst)
      publish('response.output_text.delta', { delta: script.text, message_id: `msg_${ids.hex(24)}`, index: 0, final: false });
    emitItem(assistant(script.text));
  } else if (script.kind === 'count') {
    const messageId = `msg_${ids.hex(24)}`;
    if (harness.streaming) {
      for (const [index, delta] of script.lines.entries()) {
        publish('response.output_text.delta', { delta, message_id: messageId, index, final: false });
        if (index === 9 && !KEEPS_RUNNING.has(harness.id)) {
          // A mid-turn lull: the PTY watcher reports idle, then running again.
          status('idle');
          status('running');
        }
        await step();
      }
    }
    emitItem(assistant(script.lines.join('')));
    // A closing empty delta after the item, which the real codex-native turn (0.19.1) does not send.
    if (harness.streaming && !runningFirst)
      publish('response.output_text.delta', { delta: '', message_id: messageId, index: script.lines.length, final: true });
  } else if (script.kind === 'essay' && harness.trace === 'codex-real') {
    // The real codex TUI (0.19.1) streams as it writes, relays a delta in flight after the route's interrupt,
    // acknowledges it with a second session.interrupted naming codex's turn (I20), and keeps what it wrote
    // as an interrupted item (the reference's "optional partial output_item.done").
    const messageId = `msg_${ids.hex(24)}`;
    const paragraphs = script.text.split(/(?<=\. )/);
    publish('response.output_text.delta', { delta: paragraphs[0], message_id: messageId, index: 0, final: false });
    await pause(LONG_TURN_MS);
    if (turn.interrupted) {
      publish('response.output_text.delta', { delta: paragraphs[1], message_id: messageId, index: 1, final: false });
      publish('session.interrupted', { data: { requested_at: ids.now(), response_id: `codex_${ids.hex(32)}` } });
      emitItem(assistant(paragraphs.slice(0, 2).join(''), { interrupted: true }));
    } else {
      publish('response.output_text.delta', { delta: paragraphs.slice(1).join(''), message_id: messageId, index: 1, final: false });
      emitItem(assistant(script.text));
    }
  } else if (script.kind === 'essay') {
    await pause(LONG_TURN_MS);
    if (!turn.interrupted) {
      if (harness.streaming)
        publish('response.output_text.delta', { delta: script.text, message_id: `msg_${ids.hex(24)}`, index: 0, final: false });
      emitItem(assistant(script.text));
    }
  } else {
    await runToolTurn(session, turn, script.command, { ...options, emitItem, pause, assistant, reportUsage });
  }

  await step();
  // A server whose turns never end: output, then nothing, until the client gives up.
  if (mutator?.stallsTurns && !turn.interrupted) return;
  if (!turn.interrupted) reportUsage(modelCalls === 0);
  status('idle');
  session.status = 'idle';
  session.turn = undefined;
  session.updatedAt = ids.now();
}

interface ToolTurnHelpers extends TurnOptions {
  emitItem(item: StoredItem): void;
  pause(ms: number): Promise<void>;
  assistant(text: string, extra?: Record<string, unknown>): StoredItem;
  reportUsage(withContext: boolean): void;
}

function decide(session: Session, disabled: boolean): { decision: PolicyDecision; policy?: string } {
  if (disabled) return { decision: { result: 'ALLOW' } };
  for (const policy of session.policies) {
    const decision = policy.compiled.evaluate('tool_call');
    if (decision.result !== 'ALLOW') return { decision, policy: policy.name };
  }
  return { decision: { result: 'ALLOW' } };
}

/**
 * Asks the user through the server's evaluate hook, as the real server (0.19.1)
 * does: the policy's name and reason as the message, the call as JSON, no form
 * fields; resolved by the route, then again by its mirror. The answer's action.
 */
async function askUser(
  session: Session,
  turn: ActiveTurn,
  call: { tool: string; command: string; policy: string; reason: string },
  h: ToolTurnHelpers,
) {
  const publish = session.stream.publish.bind(session.stream);
  const elicitationId = `elicit_evaluate_${h.ids.hex(32)}`;
  const request = {
    elicitation_id: elicitationId,
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message: `${call.policy}: ${call.reason}`,
      requestedSchema: {},
      url: null,
      phase: 'tool_call',
      policy_name: call.policy,
      content_preview: `{"name": ${JSON.stringify(call.tool)}, "arguments": {"command": ${JSON.stringify(call.command)}}}`,
      target_session_id: null,
    },
  };
  session.pendingElicitations.push(request);
  let answer = 'cancel';
  const park = () =>
    turn.elicitations.set(elicitationId, (action) => {
      answer = action;
      turn.wake();
    });
  if (h.parkAfterAskMs > 0) {
    publish('response.elicitation_request', request);
    await sleep(h.parkAfterAskMs);
    park();
  } else {
    park();
    publish('response.elicitation_request', request);
  }
  await h.pause(60_000);
  session.pendingElicitations = session.pendingElicitations.filter((e) => e !== request);
  for (let i = 0; i < 2; i++) publish('response.elicitation_resolved', { elicitation_id: elicitationId, action: answer, reason: null });
  return answer;
}

/**
 * A shell call under the session's policies. The reference's vendor says what
 * it will run, mirrors the call as it makes it and a blocked call's output; the
 * real codex-native path (0.19.1) mirrors the call only once it ran, a blocked
 * one not at all, and reports usage for each model call.
 */
async function runToolTurn(session: Session, turn: ActiveTurn, command: string, h: ToolTurnHelpers): Promise<void> {
  const { ids, stepMs } = h;
  const harness = session.harness;
  const real = harness.trace === 'codex-real';
  const publish = session.stream.publish.bind(session.stream);
  const tool = harness.shellTool || 'shell';
  const callId = `call_${ids.hex(24)}`;
  const call = newItem(ids, 'function_call', turn.responseId, {
    name: tool,
    arguments: JSON.stringify({ command }),
    call_id: callId,
    model: `${harness.id}-ui`,
  });
  const mirrorsNow = harness.mirrorsToolCalls && !real;
  if (!real) {
    h.emitItem(h.assistant(`I'll run \`${command}\` with my ${tool} tool.`));
    await sleep(stepMs);
  }
  if (mirrorsNow) h.emitItem(call);
  await sleep(stepMs);

  let { decision, policy } = decide(session, h.policyHookDisabled);
  if (decision.result === 'ASK') {
    const answer = await askUser(session, turn, { tool, command, policy: policy ?? 'policy', reason: decision.reason ?? '' }, h);
    decision = answer === 'accept' ? { result: 'ALLOW' } : { result: 'DENY', reason: 'declined by user' };
  }
  await sleep(stepMs);
  const denied = decision.result === 'DENY';
  if (denied) {
    publish('response.policy_denied', { conversation_id: session.id, reason: decision.reason ?? 'Denied by policy.', phase: 'tool_call' });
    await sleep(stepMs);
  }
  const output = denied ? `Blocked by PreToolUse hook: ${decision.reason ?? 'denied'}` : `${command.replace(/^echo /, '')}\n`;
  if (real && !denied && harness.mirrorsToolCalls) h.emitItem(call);
  if (harness.mirrorsToolCalls && (mirrorsNow || !denied))
    h.emitItem(newItem(ids, 'function_call_output', turn.responseId, { call_id: callId, output }));
  await sleep(stepMs);
  if (real) h.reportUsage(true);
  const text = denied ? 'The command was blocked by a policy.' : `The command printed ${output.trim()}.`;
  if (real) publish('response.output_text.delta', { delta: text, message_id: `msg_${ids.hex(24)}`, index: 0, final: false });
  h.emitItem(h.assistant(text));
}
