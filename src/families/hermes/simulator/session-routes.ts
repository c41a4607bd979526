import type { ServerResponse } from 'node:http';
import { openSse } from '../../../net/open-sse.js';
import type { SeededIds } from '../../../net/seeded-ids.js';
import type { AgentStep } from './agent.js';
import { GatewayError, sendJson } from './errors.js';
import { isTerminal, type RunEvent, type RunStore, usageOf } from './runs.js';

interface Session {
  id: string;
  title: string | null;
  createdAt: number;
  activeRun?: string;
}

/** /api/sessions and the session chat stream: named frames stamped with session_id, run_id, seq and ts, ending with done. */
export class SessionRoutes {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly runs: RunStore,
    private readonly ids: SeededIds,
  ) {}

  create(body: Record<string, unknown>, res: ServerResponse): void {
    const createdAt = this.ids.now();
    // The real gateway (0.19.0) names an API session by its start second and 8 hex characters.
    const id = typeof body.id === 'string' ? body.id : `api_${createdAt}_${this.ids.hex(8)}`;
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(id))
      throw new GatewayError(400, 'invalid_session_id', 'A session id is 1 to 128 letters, digits, _ or -');
    if (this.sessions.has(id)) throw new GatewayError(409, 'session_exists', `Session ${id} already exists`);
    const session: Session = { id, title: typeof body.title === 'string' ? body.title : null, createdAt };
    this.sessions.set(id, session);
    sendJson(res, 201, { object: 'hermes.session', session: this.view(session) });
  }

  private view(s: Session): Record<string, unknown> {
    // The fields the real gateway's session object has (0.19.0); counters stay zero, as nothing here reads them.
    return {
      id: s.id,
      source: 'api_server',
      user_id: null,
      model: 'hermes-agent',
      title: s.title,
      started_at: s.createdAt,
      ended_at: null,
      end_reason: null,
      message_count: 0,
      tool_call_count: 0,
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
      estimated_cost_usd: null,
      actual_cost_usd: null,
      api_call_count: 0,
      parent_session_id: null,
      has_system_prompt: false,
      has_model_config: false,
    };
  }

  /** POST /api/sessions/{id}/chat/stream. */
  chatStream(sessionId: string, profile: string, body: Record<string, unknown>, res: ServerResponse): void {
    const session = this.sessions.get(sessionId);
    if (!session) throw new GatewayError(404, 'session_not_found', `Session not found: ${sessionId}`);
    const message = body.message ?? body.input;
    if (typeof message !== 'string' || message === '') throw new GatewayError(400, 'missing_message', "Send a 'message'");
    const active = session.activeRun && this.runs.runs.get(session.activeRun);
    if (active && !isTerminal(active))
      throw new GatewayError(409, 'run_already_active', 'A run is already active in this session', 'invalid_request_error', {
        run_id: active.id,
      });
    this.runs.checkCapacity();
    const run = this.runs.dispatch(message, { profile, sessionId });
    session.activeRun = run.id;
    const messageId = `msg_${this.ids.hex(32)}`;
    const sse = openSse(res, { 'x-hermes-session-id': sessionId });
    let seq = 0;
    const send = (event: string, fields: Record<string, unknown> = {}) =>
      sse.send({ ...fields, session_id: sessionId, run_id: run.id, seq: ++seq, ts: this.ids.now() }, event);
    send('run.started', { user_message: { role: 'user', content: message }, runtime: { model: run.model } });
    send('message.started', { message: { id: messageId, role: 'assistant' } });
    let text = '';
    const transcript = new TurnTranscript();
    const unsubscribe = this.runs.subscribe(run, (e: RunEvent) => {
      if ('step' in e) {
        if (e.step.kind === 'delta') text += e.step.text;
        transcript.add(e.step);
        const frame = sessionFrame(e.step, messageId, run.generation);
        if (frame) send(frame[0], frame[1]);
        return;
      }
      const end = e.end;
      const messages = transcript.close(text);
      // The result's flags as the real gateway sends them; `failed` only when the run failed (the reference's failed:true).
      const flags = {
        completed: end.outcome === 'completed',
        partial: false,
        interrupted: end.outcome === 'cancelled',
        ...(end.outcome === 'failed' ? { failed: true } : {}),
      };
      send('assistant.completed', { message_id: messageId, content: text, ...flags });
      // The terminal event says only whether the turn completed (0.19.0), and, as the reference has it, failed or interrupted when so.
      const terminal = {
        message_id: messageId,
        completed: flags.completed,
        ...(end.outcome === 'completed' ? {} : end.outcome === 'failed' ? { failed: true } : { interrupted: true }),
        messages,
      };
      if (end.outcome === 'completed') send('run.completed', { ...terminal, usage: usageOf(run) });
      else if (end.outcome === 'cancelled') send('run.cancelled', terminal);
      else send('run.failed', { ...terminal, error: { message: end.error } });
      send('done');
      sse.end();
    });
    // The stream detaches on disconnect: the run goes on.
    res.on('close', () => unsubscribe());
  }
}

/**
 * The turn's own messages, as the real gateway lists them in its terminal
 * event: each tool call as an assistant message with `tool_calls`, its result
 * as a `tool` message, then the final reply; the user's message is not repeated.
 */
class TurnTranscript {
  private readonly messages: Record<string, unknown>[] = [];

  add(step: AgentStep): void {
    if (step.kind === 'tool.started') {
      const call = { name: step.tool, arguments: JSON.stringify(step.args) };
      const toolCall = { id: step.callId, call_id: step.callId, response_item_id: `fc_${step.callId}`, type: 'function', function: call };
      this.messages.push({ role: 'assistant', content: '', tool_calls: [toolCall], finish_reason: 'tool_calls', reasoning: null });
    } else if (step.kind === 'tool.completed' || step.kind === 'tool.failed') {
      this.messages.push({ role: 'tool', content: step.output, tool_call_id: step.callId, tool_name: step.tool });
    }
  }

  close(text: string): Record<string, unknown>[] {
    return [...this.messages, { role: 'assistant', content: text, finish_reason: 'stop', reasoning: null }];
  }
}

/** How the session stream frames one agent step. */
function sessionFrame(step: AgentStep, messageId: string, generation: number): [string, Record<string, unknown>] | undefined {
  switch (step.kind) {
    case 'reasoning':
      return ['reasoning.delta', { message_id: messageId, delta: step.text }];
    case 'delta':
      return ['assistant.delta', { message_id: messageId, delta: step.text }];
    case 'tool.started':
    case 'tool.completed':
    case 'tool.failed':
      return [
        step.kind,
        {
          message_id: messageId,
          tool_name: step.tool,
          tool_call_id: step.callId,
          preview: step.preview,
          args: step.args,
          ...(step.kind === 'tool.started' ? {} : { exit_code: step.exitCode, output: step.output, is_error: step.kind === 'tool.failed' }),
        },
      ];
    case 'clarify.request':
      return [
        'clarify.request',
        { prompt_id: step.promptId, question: step.question, choices: step.choices, execution_generation: generation },
      ];
    case 'clarify.retired':
      return ['clarify.settled', { prompt_id: step.promptId, answer: step.answer }];
    case 'approval.request':
      return [
        'approval.request',
        { message_id: messageId, prompt_id: step.promptId, command: step.command, choices: step.choices, execution_generation: generation },
      ];
    case 'approval.responded':
      return ['approval.settled', { prompt_id: step.promptId, choice: step.choice }];
  }
}
