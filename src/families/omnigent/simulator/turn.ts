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
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
// An interrupt must land while the vendor is still "working": hold long turns open.
const LONG_TURN_MS = 20_000;
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

  const script = scriptFor(prompt);
  const mutator = session.stream.mutator;
  if (mutator) mutator.turnKind = script.kind;
  // The real codex-native turn (0.19.1) goes running as the message is posted, before the executor's in_progress;
  // the reference's trace (in_progress, completed, consumed, then running) stands for the others, which no real server here runs.
  const runningFirst = harness.id === 'codex-native';
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

  const assistant = (text: string) =>
    newItem(ids, 'message', responseId, { role: 'assistant', agent: model, content: [{ type: 'output_text', text }] });

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
  } else if (script.kind === 'essay') {
    await pause(LONG_TURN_MS);
    // codex-native's forwarder acknowledges the interrupt with a second session.interrupted naming codex's turn (I20).
    if (turn.interrupted && harness.id === 'codex-native')
      publish('session.interrupted', { data: { requested_at: ids.now(), response_id: `codex_${ids.hex(32)}` } });
    if (!turn.interrupted) {
      if (harness.streaming)
        publish('response.output_text.delta', { delta: script.text, message_id: `msg_${ids.hex(24)}`, index: 0, final: false });
      emitItem(assistant(script.text));
    }
  } else {
    await runToolTurn(session, turn, script.command, { ...options, emitItem, pause, assistant });
  }

  await step();
  // A server whose turns never end: output, then nothing, until the client gives up.
  if (mutator?.stallsTurns && !turn.interrupted) return;
  if (harness.reportsCost && !turn.interrupted) {
    session.lastTotalTokens = (session.lastTotalTokens ?? 0) + 1830;
    session.totalCostUsd = Math.round(((session.totalCostUsd ?? 0) + 0.0123) * 1e4) / 1e4;
    publish('session.usage', {
      conversation_id: session.id,
      context_tokens: session.lastTotalTokens,
      context_window: 200_000,
      total_cost_usd: session.totalCostUsd,
    });
  }
  status('idle');
  session.status = 'idle';
  session.turn = undefined;
  session.updatedAt = ids.now();
}

interface ToolTurnHelpers extends TurnOptions {
  emitItem(item: StoredItem): void;
  pause(ms: number): Promise<void>;
  assistant(text: string): StoredItem;
}

function decide(session: Session, disabled: boolean): { decision: PolicyDecision; policy?: string } {
  if (disabled) return { decision: { result: 'ALLOW' } };
  for (const policy of session.policies) {
    const decision = policy.compiled.evaluate('tool_call');
    if (decision.result !== 'ALLOW') return { decision, policy: policy.name };
  }
  return { decision: { result: 'ALLOW' } };
}

async function runToolTurn(session: Session, turn: ActiveTurn, command: string, h: ToolTurnHelpers): Promise<void> {
  const { ids, stepMs } = h;
  const harness = session.harness;
  const publish = session.stream.publish.bind(session.stream);
  const tool = harness.shellTool || 'shell';
  const callId = `call_${ids.hex(24)}`;
  h.emitItem(h.assistant(`I'll run \`${command}\` with my ${tool} tool.`));
  await sleep(stepMs);
  const call = { name: tool, arguments: JSON.stringify({ command }), call_id: callId, agent: `${harness.id}-ui` };
  if (harness.mirrorsToolCalls) h.emitItem(newItem(ids, 'function_call', turn.responseId, call));
  await sleep(stepMs);

  let { decision, policy } = decide(session, h.policyHookDisabled);
  if (decision.result === 'ASK') {
    const elicitationId = `elicit_${ids.hex(24)}`;
    const request = {
      elicitation_id: elicitationId,
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: `Allow ${tool} to run: ${command}?`,
        requestedSchema: { type: 'object', properties: {} },
        url: null,
        phase: 'tool_call',
        policy_name: policy ?? null,
        content_preview: command,
        target_session_id: null,
      },
    };
    session.pendingElicitations.push(request);
    let answer = 'cancel';
    turn.elicitations.set(elicitationId, (action) => {
      answer = action;
      turn.wake();
    });
    publish('response.elicitation_request', request);
    await h.pause(60_000);
    session.pendingElicitations = session.pendingElicitations.filter((e) => e !== request);
    publish('response.elicitation_resolved', { elicitation_id: elicitationId });
    decision = answer === 'accept' ? { result: 'ALLOW' } : { result: 'DENY', reason: 'declined by user' };
  }
  await sleep(stepMs);
  if (decision.result === 'DENY') {
    publish('response.policy_denied', { conversation_id: session.id, reason: decision.reason ?? 'Denied by policy.', phase: 'tool_call' });
    await sleep(stepMs);
  }
  const output =
    decision.result === 'DENY' ? `Blocked by PreToolUse hook: ${decision.reason ?? 'denied'}` : `${command.replace(/^echo /, '')}\n`;
  if (harness.mirrorsToolCalls) h.emitItem(newItem(ids, 'function_call_output', turn.responseId, { call_id: callId, output }));
  await sleep(stepMs);
  h.emitItem(h.assistant(decision.result === 'DENY' ? 'The command was blocked by a policy.' : `The command printed ${output.trim()}.`));
}
