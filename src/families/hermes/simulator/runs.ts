import type { SeededIds } from '../../../net/seeded-ids.js';
import { type AgentEnd, type AgentStep, type PendingControl, runAgent } from './agent.js';
import { GatewayError } from './errors.js';

export type RunStatus = 'queued' | 'running' | 'waiting_for_approval' | 'stopping' | 'completed' | 'failed' | 'cancelled';
export type RunEvent = { step: AgentStep; at: number } | { end: AgentEnd; at: number };

export interface Run {
  id: string;
  admissionId: string;
  profile: string;
  sessionId: string;
  prompt: string;
  model: string;
  status: RunStatus;
  createdAt: number;
  updatedAt: number;
  /** The claim generation: 0 while queued, 1 once claimed; control answers must name it. */
  generation: number;
  /** Every event so far: a subscriber gets these first, then live ones. */
  log: RunEvent[];
  listeners: Set<(e: RunEvent) => void>;
  pending?: PendingControl & { answer: (value: string | undefined) => void };
  stop: () => void;
  end?: AgentEnd;
  /** A room grant that dispatched it, if any. */
  grant?: string;
}

const TERMINAL = new Set<RunStatus>(['completed', 'failed', 'cancelled']);
export const isTerminal = (r: Run) => TERMINAL.has(r.status);

/**
 * Runs as the admission model keeps them: one at a time per session in FIFO
 * order, a claim generation that fences control answers, prompts held as
 * pending controls, and stop that cancels a queued run outright.
 */
export class RunStore {
  readonly runs = new Map<string, Run>();
  /** The tail of each session's FIFO: the next run starts when it settles. */
  private readonly tails = new Map<string, Promise<void>>();
  agentRuns = 0;

  constructor(
    private readonly ids: SeededIds,
    /** The concurrent-run cap (`max_concurrent_runs`); 0 turns it off. */
    private readonly maxConcurrent = 10,
  ) {}

  /** 429 when the cap is reached: runs not yet settled count, queued ones included. */
  checkCapacity(): void {
    const active = [...this.runs.values()].filter((r) => !isTerminal(r)).length;
    if (this.maxConcurrent > 0 && active >= this.maxConcurrent)
      throw new GatewayError(
        429,
        'rate_limit_exceeded',
        `Too many concurrent runs (max ${this.maxConcurrent})`,
        'rate_limit_error',
        {},
        {
          'retry-after': '1',
        },
      );
  }

  dispatch(prompt: string, options: { profile: string; sessionId?: string; model?: string; grant?: string }): Run {
    const now = this.ids.now();
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const run: Run = {
      id: `run_${this.ids.hex(32)}`,
      admissionId: `adm_${this.ids.hex(16)}`,
      profile: options.profile,
      sessionId: options.sessionId ?? `sess_${this.ids.hex(16)}`,
      prompt,
      model: options.model ?? 'hermes-agent',
      status: 'queued',
      createdAt: now,
      updatedAt: now,
      generation: 0,
      log: [],
      listeners: new Set(),
      stop: () => {
        stop();
        run.pending?.answer(undefined);
      },
      ...(options.grant ? { grant: options.grant } : {}),
    };
    this.runs.set(run.id, run);
    const previous = this.tails.get(run.sessionId) ?? Promise.resolve();
    const done = previous.then(() => this.execute(run, stopped));
    this.tails.set(run.sessionId, done);
    return run;
  }

  private publish(run: Run, event: RunEvent): void {
    run.log.push(event);
    run.updatedAt = event.at;
    for (const l of run.listeners) l(event);
    // The end is the last event a run publishes: nobody needs to hear from it again.
    if ('end' in event) run.listeners.clear();
  }

  private async execute(run: Run, stopped: Promise<void>): Promise<void> {
    if (isTerminal(run)) return; // cancelled while queued
    run.generation = 1;
    run.status = 'running';
    this.agentRuns++;
    let stoppedFlag = false;
    void stopped.then(() => {
      stoppedFlag = true;
    });
    const end = await runAgent(run.prompt, {
      ids: this.ids,
      emit: (step) => this.publish(run, { step, at: this.ids.now() }),
      ask: (control) =>
        new Promise<string | undefined>((resolve) => {
          if (stoppedFlag) return resolve(undefined);
          if (control.kind === 'approval') run.status = 'waiting_for_approval';
          run.pending = {
            ...control,
            answer: (value) => {
              delete run.pending;
              if (run.status === 'waiting_for_approval') run.status = 'running';
              resolve(value);
            },
          };
        }),
      stopped,
      isStopped: () => stoppedFlag,
    });
    run.end = end;
    run.status = end.outcome;
    this.publish(run, { end, at: this.ids.now() });
  }

  /** Calls `listener` with every event so far, then with each new one up to the end; returns the unsubscribe. */
  subscribe(run: Run, listener: (e: RunEvent) => void): () => void {
    for (const e of run.log) listener(e);
    if (!run.end) run.listeners.add(listener);
    return () => run.listeners.delete(listener);
  }

  /** The run of `id` in `profile`; another profile's run is not found (404, never 403). */
  get(id: string, profile: string): Run {
    const run = this.runs.get(id);
    if (!run || run.profile !== profile) throw new GatewayError(404, 'run_not_found', `Run not found: ${id}`);
    return run;
  }

  /** GET /v1/runs/{id}: the admission projection. */
  view(run: Run): Record<string, unknown> {
    const end = run.end;
    return {
      object: 'hermes.run',
      run_id: run.id,
      status: run.status,
      created_at: run.createdAt,
      updated_at: run.updatedAt,
      session_id: run.sessionId,
      model: run.model,
      admission_id: run.admissionId,
      execution_generation: run.generation,
      pending_controls: run.pending ? [{ prompt_id: run.pending.prompt_id, kind: run.pending.kind, ...promptFields(run.pending) }] : [],
      ...(run.status === 'waiting_for_approval' && run.pending
        ? { approval: { command: run.pending.command, choices: run.pending.choices } }
        : {}),
      last_event: lastEventName(run),
      output: end && end.outcome !== 'failed' ? end.text : null,
      usage: end ? usageOf(run) : null,
      error: end?.outcome === 'failed' ? { message: end.error } : null,
    };
  }

  /** POST /v1/runs/{id}/stop. */
  stop(run: Run): Record<string, unknown> {
    if (isTerminal(run)) return this.view(run);
    if (run.status === 'queued') {
      run.status = 'cancelled';
      run.end = { outcome: 'cancelled', text: '' };
      run.stop();
      this.publish(run, { end: run.end, at: this.ids.now() });
      return {
        run_id: run.id,
        status: 'cancelled',
        session_id: run.sessionId,
        admission_id: run.admissionId,
        execution_generation: run.generation,
      };
    }
    run.status = 'stopping';
    run.stop();
    return { run_id: run.id, status: 'stopping', admission_id: run.admissionId };
  }

  /** POST /v1/runs/{id}/clarify or /approval with the admission body: exactly request_id, execution_generation and the answer. */
  answer(run: Run, kind: 'clarify' | 'approval', body: Record<string, unknown>): Record<string, unknown> {
    const field = kind === 'clarify' ? 'answer' : 'choice';
    const keys = Object.keys(body).sort();
    if (keys.join(',') !== ['execution_generation', field, 'request_id'].sort().join(','))
      throw new GatewayError(400, 'invalid_params', `The body must be exactly {request_id, execution_generation, ${field}}`);
    if (body.execution_generation !== run.generation)
      throw new GatewayError(
        409,
        'stale_generation',
        `execution_generation ${String(body.execution_generation)} is not the current ${run.generation}`,
      );
    const pending = run.pending;
    if (!pending || pending.kind !== kind || pending.prompt_id !== body.request_id)
      throw new GatewayError(409, 'approval_not_pending', `No ${kind} prompt ${String(body.request_id)} is pending on this run`);
    const value = body[field];
    if (typeof value !== 'string' || (kind === 'approval' && !pending.choices.includes(value)))
      throw new GatewayError(
        400,
        kind === 'approval' ? 'invalid_approval_choice' : 'invalid_clarify_response',
        `${field} must be ${kind === 'approval' ? `one of ${pending.choices.join(', ')}` : 'a string'}`,
      );
    pending.answer(value);
    return { object: `hermes.run.${kind}_response`, run_id: run.id, request_id: pending.prompt_id, resolved: 1 };
  }
}

function promptFields(p: PendingControl): Record<string, unknown> {
  return p.kind === 'clarify' ? { question: p.question, choices: p.choices } : { command: p.command, choices: p.choices };
}

function lastEventName(run: Run): string | null {
  const last = run.log[run.log.length - 1];
  if (!last) return null;
  return 'end' in last ? `run.${last.end.outcome}` : last.step.kind;
}

export function usageOf(run: Run): { input_tokens: number; output_tokens: number; total_tokens: number } {
  const output = run.log.filter((e) => 'step' in e && e.step.kind === 'delta').length;
  return { input_tokens: run.prompt.length, output_tokens: output, total_tokens: run.prompt.length + output };
}
