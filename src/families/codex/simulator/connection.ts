import type { RawData, WebSocket } from 'ws';
import { wireBytes } from '../../../cassette/index.js';
import { runTurn } from './turn.js';
import {
  type Msg,
  type Params,
  type Peer,
  RpcError,
  type Thread,
  threadOpened,
  threadView,
  turnView,
  VERSION,
  type World,
} from './views.js';

/** One client connection: the handshake, then JSON-RPC requests answered, and the client's answers to the server's requests. */
export function serveConnection(world: World, ws: WebSocket): void {
  let initialized = false;
  let nextServerId = 0;
  const send = (m: Msg) => ws.send(JSON.stringify(m));
  const peer: Peer = {
    // Live: notifications carry the server's clock next to params.
    notify: (method, params) => send({ method, params, emittedAtMs: world.ids.now() * 1000 }),
    ask: (method, params) => {
      const id = nextServerId++;
      send({ id, method, params });
      return { id, answer: new Promise<unknown>((resolve) => peer.pending.set(id, resolve)) };
    },
    pending: new Map(),
  };
  const handle = requests(world, peer);
  ws.on('message', (raw: RawData) => {
    let m: Msg;
    try {
      m = JSON.parse(wireBytes(raw).toString('utf8')) as Msg;
    } catch {
      send({ id: null, error: { code: -32700, message: 'Parse error' } });
      return;
    }
    // A reply to one of our requests.
    if (typeof m.id === 'number' && !('method' in m)) {
      peer.pending.get(m.id)?.(m.result);
      peer.pending.delete(m.id);
      return;
    }
    const method = String(m.method);
    if (m.id === undefined) {
      if (method === 'initialized') initialized = true;
      return;
    }
    try {
      if (method !== 'initialize' && !initialized) throw new RpcError(-32600, 'Not initialized');
      send({ id: m.id, result: handle(method, (m.params ?? {}) as Params) });
    } catch (err) {
      const e = err instanceof RpcError ? err : new RpcError(-32603, (err as Error).message);
      send({ id: m.id, error: { code: e.code, message: e.message } });
    }
  });
}

/** The client requests a connection answers (native-server-transports.md §3). */
function requests(world: World, peer: Peer): (method: string, params: Params) => unknown {
  let handshaken = false;
  const threadOf = (params: Params): Thread => {
    const thread = world.threads.get(String(params.threadId));
    if (!thread) throw new RpcError(-32600, `invalid thread id: ${String(params.threadId)}`);
    return thread;
  };
  return (method, params) => {
    switch (method) {
      case 'initialize':
        if (handshaken) throw new RpcError(-32600, 'Already initialized');
        handshaken = true;
        return { userAgent: `codex-sim/${VERSION}`, codexHome: '/codex-home', platformFamily: 'unix', platformOs: 'linux' };
      case 'thread/start': {
        const thread: Thread = { id: world.uuid(), cwd: typeof params.cwd === 'string' ? params.cwd : '/', turns: [] };
        world.threads.set(thread.id, thread);
        setImmediate(() => peer.notify('thread/started', { thread: threadView(thread) }));
        return threadOpened(thread);
      }
      case 'thread/resume': {
        const thread = threadOf(params);
        if (thread.turns.length === 0) throw new RpcError(-32600, `no rollout found for thread id ${thread.id}`);
        return threadOpened(thread);
      }
      case 'turn/start':
        return startTurn(world, peer, threadOf(params), params);
      case 'turn/steer': {
        const thread = threadOf(params);
        if (!thread.active || thread.active.id !== params.expectedTurnId) throw new RpcError(-32600, 'no active turn to steer');
        return { turnId: thread.active.id };
      }
      case 'turn/interrupt': {
        const thread = threadOf(params);
        if (!thread.active || thread.active.id !== params.turnId) throw new RpcError(-32600, 'no active turn to interrupt');
        thread.active.interrupt();
        return {};
      }
      default:
        throw new RpcError(-32601, `unknown method ${method}`);
    }
  };
}

/** turn/start: answered with the turn in progress; the turn runs right after the answer. */
function startTurn(world: World, peer: Peer, thread: Thread, params: Params): unknown {
  if (!Array.isArray(params.input)) throw new RpcError(-32600, 'Invalid request: missing field `input`');
  const text = (params.input as { type?: string; text?: string }[]).map((i) => i.text ?? '').join(' ');
  const id = world.uuid();
  const turn = { ...turnView(id, 'inProgress', []), startedAt: null };
  thread.turns.push(id);
  setImmediate(() => void runTurn(world, peer, thread, id, text, params.approvalPolicy === 'untrusted'));
  return { turn };
}
