import { unsupported as no, supported as ok, type SuiteObservation } from '../../manifest/observation.js';
import { type CodexClient, methodOf, type RpcMessage } from './client.js';

export const CODEX_PROBE_NAMES = ['text_turn', 'tool_approved', 'tool_rejected', 'interrupt', 'two_threads'] as const;
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

/** Starts a thread and waits for its thread/started: as codex's own TUI does, a turn starts only once the thread exists for everyone. */
async function startThread(client: CodexClient, cwd: string, turnMs: number): Promise<string> {
  const before = client.messages.length;
  const started = await client.request('thread/start', { cwd });
  const threadId = (started.thread as { id: string }).id;
  await client.waitFor(
    (m) => m.method === 'thread/started' && (params(m).thread as { id?: string } | undefined)?.id === threadId,
    turnMs,
    before,
  );
  return threadId;
}

/** Starts a thread and a turn; returns the ids and where in the message log the turn's messages begin. */
async function startTurn(client: CodexClient, cwd: string, text: string, approvalPolicy?: string, turnMs = 10_000) {
  const threadId = await startThread(client, cwd, turnMs);
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
  {
    // Two threads on one connection with turns running at once, then a second turn on the first thread.
    name: 'two_threads',
    priority: 'P1',
    async run(client, ctx) {
      const threads = [await startThread(client, ctx.cwd, ctx.turnMs), await startThread(client, ctx.cwd, ctx.turnMs)];
      const from = client.messages.length;
      // The mock model answers this prompt with one item id every time: a repeated id across turns, two of them at once.
      const input = [{ type: 'text', text: 'Say hi, and give the same reply every time.' }];
      const turnOf = async (threadId: string) => ((await client.request('turn/start', { threadId, input })).turn as { id: string }).id;
      const ended = (turnId: string) => (m: RpcMessage) =>
        completedTurn(m) && (params(m).turn as { id?: string } | undefined)?.id === turnId;
      // Both turns are started before either is waited for: they run side by side.
      const first = await Promise.all(threads.map(turnOf));
      for (const turnId of first) if (!(await client.waitFor(ended(turnId), ctx.turnMs, from))) return no(`turn ${turnId} never completed`);
      const again = await turnOf(threads[0] as string);
      if (!(await client.waitFor(ended(again), ctx.turnMs, from))) return no('the second turn of the first thread never completed');
      const turns = [...first, again];
      const messages = client.messages.slice(from);
      const texts = turns.map((turnId) =>
        messages
          .filter((m) => m.method === 'item/completed' && params(m).turnId === turnId && item(m).type === 'agentMessage')
          .map((m) => ({ id: String(item(m).id), text: String(item(m).text) })),
      );
      if (texts.some((t) => t.length === 0)) return no('a turn completed without an agentMessage');
      // Deltas add up per turn and item: an item id may come again in another turn.
      for (const [n, turnId] of turns.entries())
        for (const { id, text } of texts[n] ?? []) {
          const deltas = messages
            .filter((m) => m.method === 'item/agentMessage/delta' && params(m).turnId === turnId && params(m).itemId === id)
            .map((m) => String(params(m).delta ?? ''))
            .join('');
          if (deltas !== '' && deltas !== text)
            return no(`turn ${turnId}: deltas assemble ${JSON.stringify(deltas)}, not ${JSON.stringify(text)}`);
        }
      const ids = texts.flat().map((t) => t.id);
      const repeated = ids.length - new Set(ids).size;
      return ok(
        `three turns on two threads completed, deltas adding up per turn${repeated ? `; ${repeated} item id(s) repeated across turns` : ''}`,
      );
    },
  },
];
