import { unsupported as no, supported as ok, type SuiteObservation } from '../../manifest/observation.js';
import { type CodexClient, methodOf, type RpcMessage } from './client.js';

export const CODEX_PROBE_NAMES = ['text_turn', 'tool_approved', 'tool_rejected', 'interrupt'] as const;
export type CodexProbeName = (typeof CODEX_PROBE_NAMES)[number];

export interface CodexProbe {
  name: CodexProbeName;
  priority: 'P0' | 'P1';
  run(client: CodexClient, ctx: { cwd: string; turnMs: number }): Promise<SuiteObservation>;
}

const params = (m: RpcMessage | undefined) => (m?.params ?? {}) as Record<string, unknown>;
const item = (m: RpcMessage | undefined) => (params(m).item ?? {}) as Record<string, unknown>;
const APPROVAL = 'item/commandExecution/requestApproval';
const TOOL_PROMPT = 'Please run: echo hello-from-tool';

/** Starts a thread and a turn; returns the ids and where in the message log the turn's messages begin. */
async function startTurn(client: CodexClient, cwd: string, text: string, approvalPolicy?: string, turnMs = 10_000) {
  const before = client.messages.length;
  const started = await client.request('thread/start', { cwd });
  const threadId = (started.thread as { id: string }).id;
  // As codex's own TUI does: the thread exists for everyone once thread/started is out, so the turn starts after it.
  await client.waitFor(
    (m) => m.method === 'thread/started' && (params(m).thread as { id?: string } | undefined)?.id === threadId,
    turnMs,
    before,
  );
  const from = client.messages.length;
  const turn = await client.request('turn/start', {
    threadId,
    input: [{ type: 'text', text }],
    ...(approvalPolicy ? { approvalPolicy } : {}),
  });
  return { threadId, turnId: (turn.turn as { id: string }).id, from };
}

const completedTurn = (m: RpcMessage) => m.method === 'turn/completed';

/** A tool turn under the `untrusted` policy, the approval answered with `decision`. */
async function toolTurn(client: CodexClient, ctx: { cwd: string; turnMs: number }, decision: 'accept' | 'decline') {
  const { from } = await startTurn(client, ctx.cwd, TOOL_PROMPT, 'untrusted', ctx.turnMs);
  const request = await client.waitFor((m) => m.method === APPROVAL || completedTurn(m), ctx.turnMs, from);
  if (request?.method !== APPROVAL) return { error: `no ${APPROVAL} before the turn ended` };
  const waiting = client.messages
    .slice(from)
    .some((m) => m.method === 'thread/status/changed' && JSON.stringify(params(m).status).includes('waitingOnApproval'));
  client.respond(request.id, { decision });
  const end = await client.waitFor(completedTurn, ctx.turnMs, from);
  // CX7 resolves the request before the command completes; waiting for it, not for its place, keeps the probe about the protocol.
  const isResolved = (m: RpcMessage) => m.method === 'serverRequest/resolved' && params(m).requestId === request.id;
  if (end) await client.waitFor(isResolved, ctx.turnMs, from);
  const after = client.messages.slice(from);
  const resolved = after.findIndex(isResolved);
  const command = after.find((m) => m.method === 'item/completed' && item(m).type === 'commandExecution');
  return { end, waiting, resolved, command, request };
}

/** The codex app-server probe suite. */
export const CODEX_PROBES: readonly CodexProbe[] = [
  {
    name: 'text_turn',
    priority: 'P0',
    async run(client, ctx) {
      const { from } = await startTurn(client, ctx.cwd, 'Say hi in one short sentence.', undefined, ctx.turnMs);
      const end = await client.waitFor(completedTurn, ctx.turnMs, from);
      if (!end) return no('no turn/completed');
      const turn = params(end).turn as { status?: string; items?: { type?: string; text?: string }[] };
      const messages = client.messages.slice(from);
      const deltas = messages
        .filter((m) => m.method === 'item/agentMessage/delta')
        .map((m) => String(params(m).delta ?? ''))
        .join('');
      const text = messages
        .filter((m) => m.method === 'item/completed' && item(m).type === 'agentMessage')
        .map((m) => String(item(m).text));
      if (turn.status !== 'completed') return no(`the turn ended ${turn.status}`);
      if (text.length === 0) return no('no agentMessage item completed');
      if (deltas !== '' && deltas !== text.join(''))
        return no(`deltas assemble ${JSON.stringify(deltas)}, the item says ${JSON.stringify(text.join(''))}`);
      return ok(`turn/completed; agentMessage ${JSON.stringify(text.join(''))}`);
    },
  },
  {
    name: 'tool_approved',
    priority: 'P0',
    async run(client, ctx) {
      const r = await toolTurn(client, ctx, 'accept');
      if ('error' in r) return no(r.error ?? 'no approval');
      if (!r.end) return no('no turn/completed after the approval');
      if (r.resolved === -1) return no('no serverRequest/resolved for the approval');
      const cmd = item(r.command);
      if (cmd.status !== 'completed' || cmd.exitCode !== 0)
        return no(`the command ended ${String(cmd.status)} with exit ${String(cmd.exitCode)}`);
      return ok(`approved; ${JSON.stringify(cmd.aggregatedOutput)} (exit 0)${r.waiting ? ', waitingOnApproval seen' : ''}`);
    },
  },
  {
    name: 'tool_rejected',
    priority: 'P0',
    async run(client, ctx) {
      const r = await toolTurn(client, ctx, 'decline');
      if ('error' in r) return no(r.error ?? 'no approval');
      if (!r.end) return no('no turn/completed after the rejection');
      const cmd = item(r.command);
      if (cmd.status !== 'declined') return no(`the declined command ended ${String(cmd.status)}`);
      if (cmd.exitCode !== undefined && cmd.exitCode !== null) return no(`a declined command still reported exit ${String(cmd.exitCode)}`);
      return ok('declined; the command did not run and the turn completed');
    },
  },
  {
    name: 'interrupt',
    priority: 'P0',
    async run(client, ctx) {
      const { threadId, turnId, from } = await startTurn(client, ctx.cwd, TOOL_PROMPT, 'untrusted', ctx.turnMs);
      const request = await client.waitFor((m) => m.method === APPROVAL || completedTurn(m), ctx.turnMs, from);
      if (request?.method !== APPROVAL) return no('no approval to interrupt at');
      await client.request('turn/interrupt', { threadId, turnId });
      const resolved = await client.waitFor((m) => m.method === 'serverRequest/resolved', ctx.turnMs, from);
      const after = client.messages.slice(from).map(methodOf);
      const end = client.messages.slice(from).find(completedTurn);
      const status = (params(end).turn as { status?: string } | undefined)?.status;
      if (status !== 'interrupted') return no(`the turn ended ${String(status)}, not interrupted`);
      const order = after.indexOf('turn/completed') < after.indexOf('serverRequest/resolved') ? 'after' : 'before';
      return ok(`interrupted with the approval pending; serverRequest/resolved ${resolved ? order : 'never'} turn/completed`);
    },
  },
];
