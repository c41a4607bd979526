import { unsupported as no, supported as ok, type SuiteObservation } from '../../manifest/observation.js';
import { ServerResponseError } from '../kit/errors.js';
import type { StreamEvent, StreamReader } from '../kit/stream-reader.js';
import type { HermesClient } from './client.js';

export const HERMES_PROBE_NAMES = [
  'chat_stream_reasoning',
  'responses_stream',
  'idempotent_retry',
  'run_clarify',
  'run_approval',
  'tool_failed',
  'cancel_cross_transport',
  'room_grant_revoked',
] as const;
export type HermesProbeName = (typeof HERMES_PROBE_NAMES)[number];

export interface HermesProbe {
  name: HermesProbeName;
  priority: 'P0' | 'P1';
  run(client: HermesClient, turnMs: number): Promise<SuiteObservation>;
}

const terminalRun = (e: StreamEvent) => e.type === 'run.completed' || e.type === 'run.failed' || e.type === 'run.cancelled';

/** How long a run's events stream may take to close after its terminal event. */
const STREAM_CLOSE_MS = 2000;

/**
 * Reads a run's events to their end before letting go: the gateway follows the
 * terminal event with `: stream closed` and closes (reference invariant 21), and
 * a client that hung up first would record that only as a race goes.
 */
async function closeAfterEnd(events: StreamReader): Promise<void> {
  await events.untilEnd(STREAM_CLOSE_MS);
  events.close();
}
const errorCode = (json: Record<string, unknown>) => (json.error as { code?: unknown } | undefined)?.code;

/** Creates a session for the session chat stream; returns its id. */
async function newSession(client: HermesClient, title: string): Promise<string> {
  const session = await client.call('POST', '/api/sessions', { title });
  const id = (session.json.session as { id?: string } | undefined)?.id;
  if (session.status !== 201 || !id) throw new ServerResponseError(session.status, 'POST /api/sessions', '');
  return id;
}

/** Dispatches a run and follows its events stream. */
async function startRun(client: HermesClient, input: string, headers: Record<string, string> = {}) {
  const posted = await client.call('POST', '/v1/runs', { input }, headers);
  if (posted.status !== 202) throw new ServerResponseError(posted.status, 'POST /v1/runs', JSON.stringify(posted.json));
  const runId = posted.json.run_id as string;
  return { runId, events: await client.stream('GET', `/v1/runs/${runId}/events`) };
}

/** Waits for a prompt on the run, reads its pending control off GET /v1/runs/{id}, and answers it fenced by execution_generation. */
async function answerPrompt(client: HermesClient, runId: string, kind: 'clarify' | 'approval', pick: (choices: string[]) => string) {
  const view = await client.call('GET', `/v1/runs/${runId}`);
  const control = (view.json.pending_controls as { prompt_id: string; kind: string; choices: string[] }[] | undefined)?.find(
    (c) => c.kind === kind,
  );
  if (!control) {
    // The build before admissions (0.19.0) lists no pending_controls: its approval is answered by the choice alone.
    if (kind !== 'approval' || view.json.status !== 'waiting_for_approval') return { view, answered: undefined };
    const value = pick(['once', 'session', 'always', 'deny']);
    return { view, answered: await client.call('POST', `/v1/runs/${runId}/approval`, { choice: value }), value };
  }
  const field = kind === 'clarify' ? 'answer' : 'choice';
  const value = pick(control.choices);
  const answered = await client.call('POST', `/v1/runs/${runId}/${kind}`, {
    request_id: control.prompt_id,
    execution_generation: view.json.execution_generation,
    [field]: value,
  });
  return { view, answered, value };
}

/** The gateway probe suite, in order. */
export const HERMES_PROBES: readonly HermesProbe[] = [
  {
    name: 'chat_stream_reasoning',
    priority: 'P0',
    async run(client, turnMs) {
      const reader = await client.stream('POST', '/v1/chat/completions', {
        model: 'hermes-agent',
        stream: true,
        messages: [{ role: 'user', content: 'What is 2+2? Use the tool to run: echo 4' }],
      });
      await reader.untilEnd(turnMs);
      const deltas = reader.events.map((e) => (e.data.choices as { delta?: Record<string, unknown> }[] | undefined)?.[0]?.delta ?? {});
      const reasoning = deltas.filter((d) => typeof d.reasoning_content === 'string').length;
      const text = deltas.map((d) => (typeof d.content === 'string' ? d.content : '')).join('');
      const tools = reader.count('hermes.tool.progress');
      if (!reader.sawDone) return no('the stream ended without data: [DONE]');
      if (text === '') return no('no content deltas');
      if (reasoning === 0) return { observed: 'PARTIAL', note: `text streamed (${text.length} chars) without reasoning_content` };
      return ok(`${reasoning} reasoning delta(s), ${tools} tool progress frame(s), text ${JSON.stringify(text)}`);
    },
  },
  {
    name: 'responses_stream',
    priority: 'P0',
    async run(client, turnMs) {
      const reader = await client.stream('POST', '/v1/responses', { input: 'Use the tool to run: ls', stream: true });
      await reader.untilEnd(turnMs);
      const text = reader.events
        .filter((e) => e.type === 'response.output_text.delta')
        .map((e) => e.data.delta)
        .join('');
      const done = reader.events.find((e) => e.type === 'response.output_text.done')?.data.text;
      const last = reader.events[reader.events.length - 1]?.type;
      if (last !== 'response.completed') return no(`the stream ended with ${last ?? 'nothing'}, not response.completed`);
      if (text !== done) return no(`deltas assemble ${JSON.stringify(text)} but output_text.done says ${JSON.stringify(done)}`);
      return ok(`response.completed; deltas assemble the final text ${JSON.stringify(text)}`);
    },
  },
  {
    name: 'idempotent_retry',
    priority: 'P0',
    async run(client, turnMs) {
      const stored = async () =>
        ((await client.call('GET', '/health/detailed')).json.api_server as { stored_runs?: number } | undefined)?.stored_runs;
      const before = await stored();
      const key = { 'idempotency-key': 'bench-retry-1' };
      const { runId, events } = await startRun(client, 'Say hello once.', key);
      await events.untilEnd(turnMs);
      const retry = await client.call('POST', '/v1/runs', { input: 'Say hello once.' }, key);
      const conflict = await client.call('POST', '/v1/runs', { input: 'Say goodbye instead.' }, key);
      const after = await stored();
      if (retry.status !== 202 || retry.json.run_id !== runId || retry.json.replayed !== true)
        return no(`the exact retry answered ${retry.status} ${JSON.stringify(retry.json)}, not the original run replayed`);
      if (conflict.status !== 409 || errorCode(conflict.json) !== 'idempotency_key_conflict')
        return no(`the changed retry answered ${conflict.status} ${JSON.stringify(conflict.json)}, not 409 idempotency_key_conflict`);
      if (before !== undefined && after !== undefined && after - before !== 1) return no(`${after - before} runs were stored for one key`);
      return ok(`exact retry replayed ${runId} (${retry.json.status}); changed body refused 409; one run stored`);
    },
  },
  {
    name: 'run_clarify',
    priority: 'P0',
    async run(client, turnMs) {
      const { runId, events } = await startRun(client, 'Summarise a file; clarify which one first.');
      if (!(await events.waitFor((e) => e.type === 'clarify.request' || terminalRun(e), turnMs))?.type.startsWith('clarify'))
        return no('no clarify.request before the run ended');
      const { answered, value } = await answerPrompt(client, runId, 'clarify', (choices) => choices[0] ?? 'yes');
      if (answered?.status !== 200)
        return no(`answering the clarify prompt failed: ${JSON.stringify(answered?.json ?? 'no pending control')}`);
      const end = await events.waitFor(terminalRun, turnMs);
      await closeAfterEnd(events);
      if (end?.type !== 'run.completed') return no(`the run ended with ${end?.type ?? 'nothing'} after the answer`);
      // The final text is run.completed's output; the deltas carry it too, should a server leave output out.
      const deltas = events.events.filter((e) => e.type === 'message.delta').map((e) => String(e.data.delta ?? ''));
      const output = typeof end.data.output === 'string' ? end.data.output : deltas.join('');
      return output.includes(value ?? '')
        ? ok(`clarify answered with ${value}; run.completed: ${JSON.stringify(output)}`)
        : no(`the output ignores the answer: ${output}`);
    },
  },
  {
    name: 'run_approval',
    priority: 'P0',
    async run(client, turnMs) {
      const { runId, events } = await startRun(client, 'Clean the build folder; it needs approval.');
      if (!(await events.waitFor((e) => e.type === 'approval.request' || terminalRun(e), turnMs))?.type.startsWith('approval'))
        return no('no approval.request before the run ended');
      const { view, answered } = await answerPrompt(client, runId, 'approval', () => 'once');
      if (view.json.status !== 'waiting_for_approval') return no(`status was ${String(view.json.status)} while the approval was pending`);
      if (answered?.status !== 200) return no(`approving failed: ${JSON.stringify(answered?.json ?? 'no pending control')}`);
      const end = await events.waitFor(terminalRun, turnMs);
      await closeAfterEnd(events);
      return end?.type === 'run.completed'
        ? ok('waiting_for_approval, approved once, run.completed')
        : no(`the run ended with ${end?.type ?? 'nothing'}`);
    },
  },
  {
    name: 'tool_failed',
    priority: 'P0',
    async run(client, turnMs) {
      const id = await newSession(client, 'bench tool_failed');
      const reader = await client.stream('POST', `/api/sessions/${id}/chat/stream`, { message: 'Read missing.txt; the tool will fail.' });
      await reader.untilEnd(turnMs);
      const failed = reader.events.find((e) => e.type === 'tool.failed');
      const started = reader.events.find((e) => e.type === 'tool.started');
      const last = reader.events[reader.events.length - 1]?.type;
      if (!failed) return no(`no tool.failed (events: ${reader.events.map((e) => e.type).join(', ')})`);
      if (failed.data.tool_call_id !== started?.data.tool_call_id) return no('tool.failed does not name the started tool_call_id');
      if (last !== 'done') return no(`the stream ended with ${last}, not done`);
      return ok(
        `tool.failed for ${String(failed.data.tool_call_id)} (exit ${String(failed.data.exit_code)}, output ${JSON.stringify(failed.data.output ?? '')})`,
      );
    },
  },
  {
    name: 'cancel_cross_transport',
    priority: 'P0',
    async run(client, turnMs) {
      const id = await newSession(client, 'bench cancel');
      const reader = await client.stream('POST', `/api/sessions/${id}/chat/stream`, { message: 'Write a long essay about computing.' });
      // The run is live once message.started arrives; a reply may legally come with no delta at all.
      const started = await reader.waitFor((e) => e.type === 'message.started' || e.type === 'done', turnMs);
      if (started?.type !== 'message.started') return no('no message.started: the run never began');
      const runId = started.data.run_id as string;
      const stop = await client.call('POST', `/v1/runs/${runId}/stop`);
      await reader.untilEnd(turnMs);
      const types = reader.events.map((e) => e.type);
      const status = (await client.call('GET', `/v1/runs/${runId}`)).json.status;
      // The route template, not the id: the reason reads the same on every recording.
      if (stop.status !== 200) return no(`POST /v1/runs/{run_id}/stop answered ${stop.status}`);
      if (!types.includes('run.cancelled') || types.includes('run.completed'))
        return no(`the session stream ended ${types.slice(-3).join(', ')}, not run.cancelled`);
      return ok(`stopped over /v1/runs while streaming on the session: run.cancelled, done; status ${String(status)}`);
    },
  },
  {
    name: 'room_grant_revoked',
    priority: 'P1',
    async run(client, turnMs) {
      const invite = await client.call('POST', '/v1/room-members/invitations', {
        room_id: 'room-bench',
        home_install_id: 'install-bench',
        authority_gateway_id: 'gateway-bench',
        authority_epoch: 1,
        member_id: 'member-bench',
      });
      const grant = invite.json.grant;
      if (invite.status !== 201 || typeof grant !== 'string') return no(`the invitation answered ${invite.status} without a grant`);
      const room = { authorization: `HermesRoom ${grant}` };
      const { runId, events } = await startRun(client, 'Say hello to the room.', room);
      await events.untilEnd(turnMs);
      const allowed = await client.call('GET', `/v1/runs/${runId}`, undefined, room);
      const revoked = await client.call('POST', '/v1/room-members/grants/revoke', {}, room);
      const refused = await client.call('GET', `/v1/runs/${runId}`, undefined, room);
      if (allowed.status !== 200) return no(`the live grant could not read its run (${allowed.status})`);
      if (revoked.status !== 200) return no(`revoking answered ${revoked.status}`);
      if (refused.status !== 403 || errorCode(refused.json) !== 'room_reauthorization_required')
        return no(`after revocation: ${refused.status} ${String(errorCode(refused.json))}, not 403 room_reauthorization_required`);
      return ok('a revoked grant gets 403 room_reauthorization_required');
    },
  },
];
