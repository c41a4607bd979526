import { createServer } from 'node:http';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { wireBytes } from '../../../cassette/index.js';
import { listen } from '../../../net/listen.js';
import { SeededIds } from '../../../net/seeded-ids.js';

export interface CodexSimulatorOptions {
  seed?: number;
  port?: number;
  host?: string;
}

export interface CodexSimulator {
  /** The ws:// URL clients connect to. */
  url: string;
  close(): Promise<void>;
}

type Msg = Record<string, unknown>;
type Params = Record<string, unknown>;
const VERSION = '0.171.0';

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

interface Thread {
  id: string;
  cwd: string;
  turns: string[];
  /** The running turn and how to stop it. */
  active?: { id: string; interrupt: () => void };
}

/**
 * A codex app-server simulator (JSON-RPC over WebSocket, no "jsonrpc" member),
 * following native-server-transports.md §3: the handshake, thread/start and
 * thread/resume, turn/start, turn/steer and turn/interrupt, item notifications,
 * command approvals requested by the server and `serverRequest/resolved`.
 * A prompt with `run` asks to run a command (approval when the turn's policy
 * is `untrusted`), `essay` streams until interrupted, anything else is text.
 */
export async function startCodexSimulator(options: CodexSimulatorOptions = {}): Promise<CodexSimulator> {
  const ids = new SeededIds(options.seed ?? 1);
  const threads = new Map<string, Thread>();
  const uuid = () => {
    const h = ids.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-7${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  };
  const http = createServer((req, res) => {
    res.sendDate = false;
    const ok = req.url === '/readyz' || req.url === '/healthz';
    res.writeHead(ok ? 200 : 400, { 'content-type': 'text/plain' });
    res.end(ok ? 'ok' : 'expected a WebSocket upgrade');
  });
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req, socket, head) => {
    // The real listener refuses any Origin (a browser page must not drive the agent).
    if (req.headers.origin) {
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => connection(ws));
  });

  function connection(ws: WebSocket): void {
    let initialized = false;
    let nextServerId = 0;
    const pending = new Map<number, (result: unknown) => void>();
    const send = (m: Msg) => ws.send(JSON.stringify(m));
    // Live: notifications carry the server's clock next to params.
    const notify = (method: string, params: Params) => send({ method, params, emittedAtMs: ids.now() * 1000 });
    /** A request from the server; resolves with the client's result, or undefined if the turn ends first. */
    const ask = (method: string, params: Params) => {
      const id = nextServerId++;
      send({ id, method, params });
      return { id, answer: new Promise<unknown>((resolve) => pending.set(id, resolve)) };
    };

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
        pending.get(m.id)?.(m.result);
        pending.delete(m.id);
        return;
      }
      const method = String(m.method);
      const params = (m.params ?? {}) as Params;
      if (m.id === undefined) {
        if (method === 'initialized') initialized = true;
        return;
      }
      try {
        if (method !== 'initialize' && !initialized) throw new RpcError(-32600, 'Not initialized');
        send({ id: m.id, result: handle(method, params) });
      } catch (err) {
        const e = err instanceof RpcError ? err : new RpcError(-32603, (err as Error).message);
        send({ id: m.id, error: { code: e.code, message: e.message } });
      }
    });

    let handshaken = false;
    function handle(method: string, params: Params): unknown {
      switch (method) {
        case 'initialize':
          if (handshaken) throw new RpcError(-32600, 'Already initialized');
          handshaken = true;
          return { userAgent: `codex-sim/${VERSION}`, codexHome: '/codex-home', platformFamily: 'unix', platformOs: 'linux' };
        case 'thread/start': {
          const thread: Thread = { id: uuid(), cwd: typeof params.cwd === 'string' ? params.cwd : '/', turns: [] };
          threads.set(thread.id, thread);
          setImmediate(() => notify('thread/started', { thread: threadView(thread) }));
          return threadOpened(thread);
        }
        case 'thread/resume': {
          const thread = threadOf(params);
          if (thread.turns.length === 0) throw new RpcError(-32600, `no rollout found for thread id ${thread.id}`);
          return threadOpened(thread);
        }
        case 'turn/start': {
          const thread = threadOf(params);
          if (!Array.isArray(params.input)) throw new RpcError(-32600, 'Invalid request: missing field `input`');
          const text = (params.input as { type?: string; text?: string }[]).map((i) => i.text ?? '').join(' ');
          const id = uuid();
          const turn = { ...turnView(id, 'inProgress', []), startedAt: null };
          thread.turns.push(id);
          setImmediate(() => void runTurn(thread, id, text, params.approvalPolicy === 'untrusted'));
          return { turn };
        }
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
    }

    function threadOf(params: Params): Thread {
      const thread = threads.get(String(params.threadId));
      if (!thread) throw new RpcError(-32600, `invalid thread id: ${String(params.threadId)}`);
      return thread;
    }

    async function runTurn(thread: Thread, turnId: string, text: string, untrusted: boolean): Promise<void> {
      let interrupted!: () => void;
      const stopped = new Promise<'interrupted'>((resolve) => {
        interrupted = () => resolve('interrupted');
      });
      thread.active = { id: turnId, interrupt: interrupted };
      const base = { threadId: thread.id, turnId };
      const status = (type: string, activeFlags?: string[]) =>
        notify('thread/status/changed', { threadId: thread.id, status: activeFlags ? { type, activeFlags } : { type } });
      status('active', []);
      notify('turn/started', { threadId: thread.id, turn: { ...turnView(turnId, 'inProgress', []), startedAt: ids.now() } });
      const user = { type: 'userMessage', id: `item_${ids.hex(12)}`, content: [{ type: 'text', text }] };
      notify('item/started', { ...base, item: user, startedAtMs: ids.now() * 1000 });
      notify('item/completed', { ...base, item: user, completedAtMs: ids.now() * 1000 });
      const items: Msg[] = [];
      const message = (reply: string) => {
        // As the real server does with a model that repeats an item id: every turn asking for the same reply gets one id.
        const item = { type: 'agentMessage', id: /\bthe same reply\b/.test(text) ? 'msg_same_reply' : `msg_${ids.hex(24)}`, text: '' };
        notify('item/started', { ...base, item, startedAtMs: ids.now() * 1000 });
        for (const delta of reply.split(/(?<= )/)) notify('item/agentMessage/delta', { ...base, itemId: item.id, delta });
        const done = { ...item, text: reply };
        notify('item/completed', { ...base, item: done, completedAtMs: ids.now() * 1000 });
        items.push(done);
      };
      const end = (outcome: 'completed' | 'interrupted') => {
        delete thread.active;
        if (outcome === 'completed') {
          const total = {
            totalTokens: text.length + 8,
            inputTokens: text.length,
            cachedInputTokens: 0,
            outputTokens: 8,
            reasoningOutputTokens: 0,
          };
          notify('thread/tokenUsage/updated', { ...base, tokenUsage: { total, last: total, modelContextWindow: 200_000 } });
          // CX5: the rate limits and the read state follow the usage, before the thread goes idle.
          notify('account/rateLimits/updated', { rateLimits: { limitId: 'codex', primary: null, secondary: null, credits: null } });
          notify('thread/readState/changed', {
            threadId: thread.id,
            readState: { firstUnread: { type: 'turn', turnId }, revision: `rev_${ids.hex(12)}` },
          });
        }
        status('idle');
        notify('turn/completed', {
          threadId: thread.id,
          turn: {
            ...turnView(turnId, outcome, outcome === 'completed' ? items : []),
            startedAt: ids.now(),
            completedAt: ids.now(),
            durationMs: 5,
          },
        });
      };

      if (/\bessay\b/i.test(text)) {
        const item = { type: 'agentMessage', id: `msg_${ids.hex(24)}`, text: '' };
        notify('item/started', { ...base, item, startedAtMs: ids.now() * 1000 });
        notify('item/agentMessage/delta', { ...base, itemId: item.id, delta: 'Computing began ' });
        await stopped;
        return end('interrupted');
      }
      if (/\brun\b/i.test(text)) {
        const command = "/bin/bash -lc 'echo hello-from-tool'";
        const item = {
          type: 'commandExecution',
          id: `call_${ids.hex(12)}`,
          command,
          cwd: thread.cwd,
          status: 'inProgress',
          commandActions: [],
          source: 'agent',
        };
        let decision: unknown = 'accept';
        if (untrusted) {
          status('active', ['waitingOnApproval']);
          notify('item/started', { ...base, item, startedAtMs: ids.now() * 1000 });
          const request = ask('item/commandExecution/requestApproval', {
            ...base,
            itemId: item.id,
            startedAtMs: ids.now() * 1000,
            command,
            cwd: thread.cwd,
            commandActions: [{ type: 'unknown', command: 'echo hello-from-tool' }],
            proposedExecpolicyAmendment: ['echo', 'hello-from-tool'],
            // CX-B: a decision is a name or an object carrying its amendment.
            availableDecisions: [
              'accept',
              { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['echo', 'hello-from-tool'] } },
              'cancel',
            ],
          });
          const answer = await Promise.race([request.answer, stopped]);
          if (answer === 'interrupted') {
            // Interrupted with the approval pending: the turn ends first, the request is resolved after it.
            end('interrupted');
            pending.delete(request.id);
            return notify('serverRequest/resolved', { threadId: thread.id, requestId: request.id });
          }
          decision = (answer as { decision?: unknown } | undefined)?.decision;
          notify('serverRequest/resolved', { threadId: thread.id, requestId: request.id });
          status('active', []);
        } else {
          notify('item/started', { ...base, item, startedAtMs: ids.now() * 1000 });
        }
        if (decision === 'accept') {
          notify('item/completed', {
            ...base,
            item: { ...item, status: 'completed', exitCode: 0, aggregatedOutput: 'hello-from-tool\n', durationMs: 3 },
            completedAtMs: ids.now() * 1000,
          });
          message('The command printed hello-from-tool.');
        } else {
          notify('item/completed', {
            ...base,
            item: { ...item, status: 'declined', aggregatedOutput: null, exitCode: null, durationMs: null },
            completedAtMs: ids.now() * 1000,
          });
          message('The command was not run.');
        }
        return end('completed');
      }
      message(`Hello from the codex simulator: ${text}`);
      end('completed');
    }
  }

  /** The result of thread/start and thread/resume: the thread and the settings it runs under. */
  function threadOpened(thread: Thread): Msg {
    return {
      thread: threadView(thread),
      model: 'mock-model',
      modelProvider: 'mock',
      cwd: thread.cwd,
      approvalPolicy: 'on-request',
      approvalsReviewer: 'user',
      sandbox: { type: 'dangerFullAccess' },
    };
  }

  /** §3 Turn: the fields every turn carries; times are filled in as the turn runs. */
  function turnView(id: string, status: string, items: Msg[]): Msg {
    return { id, rootTurnId: id, items, itemsView: 'summary', status, error: null, startedAt: null, completedAt: null, durationMs: null };
  }

  function threadView(t: Thread): Msg {
    return {
      id: t.id,
      sessionId: t.id,
      cwd: t.cwd,
      status: { type: 'idle' },
      turns: [],
      modelProvider: 'mock',
      model: 'mock-model',
      cliVersion: VERSION,
      projectId: null,
      preview: '',
      ephemeral: false,
      createdAt: 1_787_000_000,
      updatedAt: 1_787_000_000,
      source: 'appServer',
    };
  }

  const { port } = await listen(http, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    url: `ws://${options.host ?? '127.0.0.1'}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
