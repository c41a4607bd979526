import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { openSse } from '../../../net/open-sse.js';
import type { AgentStep } from './agent.js';
import { GatewayError, lastUserText, sendJson } from './errors.js';
import type { Run, RunEvent, RunStore } from './runs.js';
import { usageOf } from './runs.js';

const VISIBLE_ASCII = /^[\x21-\x7e]{1,255}$/;

/** /v1/runs: dispatch with durable idempotency, status, the events stream, clarify and approval answers, stop. */
export class RunRoutes {
  private readonly keys = new Map<string, { fingerprint: string; runId: string }>();

  constructor(private readonly runs: RunStore) {}

  /** POST /v1/runs: 202, or the original run on an exact retry, or 409 on a changed body. */
  dispatch(body: Record<string, unknown>, key: string | undefined, scope: { profile: string; grant?: string }, res: ServerResponse): void {
    const prompt = lastUserText(body.input);
    if (prompt === undefined) throw new GatewayError(400, 'invalid_request', "Missing 'input' field");
    if (key !== undefined && !VISIBLE_ASCII.test(key))
      throw new GatewayError(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 visible ASCII characters');
    const fingerprint = createHash('sha256').update(JSON.stringify(body)).digest('hex');
    const scoped =
      key &&
      createHash('sha256')
        .update(`${scope.profile}\n${scope.grant ?? 'api-key'}\n${key}`)
        .digest('hex');
    if (scoped) {
      const prior = this.keys.get(scoped);
      if (prior) {
        const run = this.runs.runs.get(prior.runId) as Run;
        // After a cancellation the key is fenced: any retry counts as reused.
        if (prior.fingerprint !== fingerprint && run.status !== 'cancelled')
          throw new GatewayError(409, 'idempotency_key_conflict', 'Idempotency-Key was already used with a different request payload');
        sendJson(res, 202, { run_id: run.id, status: run.status, replayed: true }, { 'idempotency-replayed': 'true' });
        return;
      }
    }
    // A replay is answered above, before the cap: only a new run counts against it.
    this.runs.checkCapacity();
    const run = this.runs.dispatch(prompt, {
      profile: scope.profile,
      ...(typeof body.session_id === 'string' ? { sessionId: body.session_id } : {}),
      ...(typeof body.model === 'string' ? { model: body.model } : {}),
      ...(scope.grant ? { grant: scope.grant } : {}),
    });
    if (scoped) this.keys.set(scoped, { fingerprint, runId: run.id });
    sendJson(res, 202, { run_id: run.id, status: 'started', replayed: false });
  }

  status(run: Run, res: ServerResponse): void {
    sendJson(res, 200, this.runs.view(run));
  }

  /** GET /v1/runs/{id}/events: data-only frames named by their `event` field, then the stream-closed comment. */
  events(run: Run, res: ServerResponse): void {
    const sse = openSse(res);
    const frame = (event: string, fields: Record<string, unknown>, at: number) =>
      sse.send({ event, run_id: run.id, timestamp: at, ...fields });
    const unsubscribe = this.runs.subscribe(run, (e: RunEvent) => {
      if ('step' in e) {
        for (const [event, fields] of runFrames(e.step)) frame(event, fields, e.at);
        return;
      }
      const end = e.end;
      if (end.outcome === 'completed') frame('run.completed', { output: end.text, usage: usageOf(run) }, e.at);
      else if (end.outcome === 'failed') frame('run.failed', { error: { message: end.error } }, e.at);
      else frame('run.cancelled', {}, e.at);
      sse.comment('stream closed');
      sse.end();
    });
    res.on('close', () => unsubscribe());
  }

  answer(run: Run, kind: 'clarify' | 'approval', body: Record<string, unknown>, res: ServerResponse): void {
    sendJson(res, 200, this.runs.answer(run, kind, body));
  }

  stop(run: Run, res: ServerResponse): void {
    sendJson(res, 200, this.runs.stop(run));
  }
}

/** How /v1/runs/{id}/events frames one agent step. */
function runFrames(step: AgentStep): [string, Record<string, unknown>][] {
  switch (step.kind) {
    case 'reasoning':
      return [['reasoning.available', { text: step.text }]];
    case 'delta':
      return [['message.delta', { delta: step.text }]];
    case 'tool.started':
      return [['tool.started', { tool: step.tool, preview: step.preview }]];
    case 'tool.completed':
    case 'tool.failed':
      return [['tool.completed', { tool: step.tool, duration: 0.125, error: step.kind === 'tool.failed' }]];
    case 'clarify.request':
      return [['clarify.request', { clarify_id: step.promptId, question: step.question, choices: step.choices, multi_select: false }]];
    case 'clarify.retired':
      return [
        ['clarify.retired', { clarify_id: step.promptId, notice: 'answered' }],
        ['message.delta', { delta: `✅ answered: ${step.answer}\n` }],
      ];
    case 'approval.request':
      return [['approval.request', { request_id: step.promptId, command: step.command, choices: step.choices }]];
    case 'approval.responded':
      return [['approval.responded', { request_id: step.promptId, choice: step.choice, resolved: 1 }]];
  }
}
