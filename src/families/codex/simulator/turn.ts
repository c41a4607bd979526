import { type Msg, type Peer, type Thread, turnView, type World } from './views.js';

/** What a turn's steps share: where it runs, how it reports, and what it has produced. */
interface TurnRun {
  world: World;
  peer: Peer;
  thread: Thread;
  turnId: string;
  text: string;
  base: { threadId: string; turnId: string };
  items: Msg[];
  stopped: Promise<'interrupted'>;
}

const COMMAND = "/bin/bash -lc 'echo hello-from-tool'";

/**
 * One turn: the user's item, then a reply. A prompt with `run` runs a command (approval first when the turn's policy
 * is `untrusted`), `essay` streams until interrupted, anything else is text.
 */
export async function runTurn(world: World, peer: Peer, thread: Thread, turnId: string, text: string, untrusted: boolean): Promise<void> {
  let interrupted!: () => void;
  const stopped = new Promise<'interrupted'>((resolve) => {
    interrupted = () => resolve('interrupted');
  });
  thread.active = { id: turnId, interrupt: interrupted };
  const t: TurnRun = { world, peer, thread, turnId, text, base: { threadId: thread.id, turnId }, items: [], stopped };
  const { ids } = world;
  status(t, 'active', []);
  peer.notify('turn/started', { threadId: thread.id, turn: { ...turnView(turnId, 'inProgress', []), startedAt: ids.now() } });
  const user = { type: 'userMessage', id: `item_${ids.hex(12)}`, content: [{ type: 'text', text }] };
  peer.notify('item/started', { ...t.base, item: user, startedAtMs: ids.now() * 1000 });
  peer.notify('item/completed', { ...t.base, item: user, completedAtMs: ids.now() * 1000 });
  if (/\bessay\b/i.test(text)) {
    const item = { type: 'agentMessage', id: `msg_${ids.hex(24)}`, text: '' };
    peer.notify('item/started', { ...t.base, item, startedAtMs: ids.now() * 1000 });
    peer.notify('item/agentMessage/delta', { ...t.base, itemId: item.id, delta: 'Computing began ' });
    await stopped;
    return end(t, 'interrupted');
  }
  if (/\brun\b/i.test(text)) return commandTurn(t, untrusted);
  message(t, `Hello from the codex simulator: ${text}`);
  end(t, 'completed');
}

function status(t: TurnRun, type: string, activeFlags?: string[]): void {
  t.peer.notify('thread/status/changed', { threadId: t.thread.id, status: activeFlags ? { type, activeFlags } : { type } });
}

/** An agent message streamed in deltas. */
function message(t: TurnRun, reply: string): void {
  const { ids } = t.world;
  // As the real server does with a model that repeats an item id: every turn asking for the same reply gets one id.
  const item = { type: 'agentMessage', id: /\bthe same reply\b/.test(t.text) ? 'msg_same_reply' : `msg_${ids.hex(24)}`, text: '' };
  t.peer.notify('item/started', { ...t.base, item, startedAtMs: ids.now() * 1000 });
  for (const delta of reply.split(/(?<= )/)) t.peer.notify('item/agentMessage/delta', { ...t.base, itemId: item.id, delta });
  const done = { ...item, text: reply };
  t.peer.notify('item/completed', { ...t.base, item: done, completedAtMs: ids.now() * 1000 });
  t.items.push(done);
}

/** The turn's end: a completed turn reports its usage, rate limits and read state first (CX5); then idle, then turn/completed. */
function end(t: TurnRun, outcome: 'completed' | 'interrupted'): void {
  const { ids } = t.world;
  const { peer, thread, turnId, text } = t;
  delete thread.active;
  if (outcome === 'completed') {
    const total = {
      totalTokens: text.length + 8,
      inputTokens: text.length,
      cachedInputTokens: 0,
      outputTokens: 8,
      reasoningOutputTokens: 0,
    };
    peer.notify('thread/tokenUsage/updated', { ...t.base, tokenUsage: { total, last: total, modelContextWindow: 200_000 } });
    peer.notify('account/rateLimits/updated', { rateLimits: { limitId: 'codex', primary: null, secondary: null, credits: null } });
    peer.notify('thread/readState/changed', {
      threadId: thread.id,
      readState: { firstUnread: { type: 'turn', turnId }, revision: `rev_${ids.hex(12)}` },
    });
  }
  status(t, 'idle');
  const view = turnView(turnId, outcome, outcome === 'completed' ? t.items : []);
  peer.notify('turn/completed', { threadId: thread.id, turn: { ...view, startedAt: ids.now(), completedAt: ids.now(), durationMs: 5 } });
}

/** A command the agent runs: asked for approval under `untrusted` (an interrupt may land while it is pending), then run or declined. */
async function commandTurn(t: TurnRun, untrusted: boolean): Promise<void> {
  const { ids } = t.world;
  const item = {
    type: 'commandExecution',
    id: `call_${ids.hex(12)}`,
    command: COMMAND,
    cwd: t.thread.cwd,
    status: 'inProgress',
    commandActions: [],
    source: 'agent',
  };
  let decision: unknown = 'accept';
  if (untrusted) {
    status(t, 'active', ['waitingOnApproval']);
    t.peer.notify('item/started', { ...t.base, item, startedAtMs: ids.now() * 1000 });
    const approved = await approval(t, item.id);
    if (approved === 'interrupted') return;
    decision = approved;
  } else t.peer.notify('item/started', { ...t.base, item, startedAtMs: ids.now() * 1000 });
  const accepted = decision === 'accept';
  const ran = accepted
    ? { status: 'completed', exitCode: 0, aggregatedOutput: 'hello-from-tool\n', durationMs: 3 }
    : { status: 'declined', aggregatedOutput: null, exitCode: null, durationMs: null };
  t.peer.notify('item/completed', { ...t.base, item: { ...item, ...ran }, completedAtMs: ids.now() * 1000 });
  message(t, accepted ? 'The command printed hello-from-tool.' : 'The command was not run.');
  end(t, 'completed');
}

/** Asks the client to approve the command: its decision, or 'interrupted' when the turn was interrupted first (and ended here). */
async function approval(t: TurnRun, itemId: string): Promise<unknown> {
  const { ids } = t.world;
  const request = t.peer.ask('item/commandExecution/requestApproval', {
    ...t.base,
    itemId,
    startedAtMs: ids.now() * 1000,
    command: COMMAND,
    cwd: t.thread.cwd,
    commandActions: [{ type: 'unknown', command: 'echo hello-from-tool' }],
    proposedExecpolicyAmendment: ['echo', 'hello-from-tool'],
    // CX-B: a decision is a name or an object carrying its amendment.
    availableDecisions: ['accept', { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['echo', 'hello-from-tool'] } }, 'cancel'],
  });
  const answer = await Promise.race([request.answer, t.stopped]);
  if (answer === 'interrupted') {
    // Interrupted with the approval pending: the turn ends first, the request is resolved after it.
    end(t, 'interrupted');
    t.peer.pending.delete(request.id);
    t.peer.notify('serverRequest/resolved', { threadId: t.thread.id, requestId: request.id });
    return 'interrupted';
  }
  t.peer.notify('serverRequest/resolved', { threadId: t.thread.id, requestId: request.id });
  status(t, 'active', []);
  return (answer as { decision?: unknown } | undefined)?.decision;
}
