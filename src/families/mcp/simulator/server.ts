import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readText, sendJson } from '../../../net/http-json.js';
import { listen } from '../../../net/listen.js';
import { SeededIds } from '../../../net/seeded-ids.js';
import type { RunningServer } from '../../family.js';
import { answer, initializeResult, RpcError, type SessionState } from './methods.js';

export interface McpSimulatorOptions {
  seed?: number;
  port?: number;
  host?: string;
  latencyMs?: number;
}

interface Session extends SessionState {
  stream: ServerResponse | undefined;
  /** Requests under way that a client may cancel. */
  cancelled: Set<string>;
}

type Message = Record<string, unknown> & { id?: unknown; method?: string; params?: Record<string, unknown> };

const rpcError = (id: unknown, code: number, message: string) => ({ jsonrpc: '2.0', id: id ?? null, error: { code, message } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * An MCP server over Streamable HTTP at `/mcp`, for recording without one: sessions issued on `initialize` and
 * required after it, a GET stream for notifications, DELETE, tools (one streams progress and can be cancelled),
 * a subscribable resource, a prompt, logging levels and completion. Session ids come from the seed.
 */
export async function startMcpSimulator(options: McpSimulatorOptions = {}): Promise<RunningServer> {
  const ids = new SeededIds(options.seed ?? 1);
  const sessions = new Map<string, Session>();
  const server = createServer((req, res) => {
    res.sendDate = false;
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) res.end();
      else sendJson(res, 500, rpcError(null, -32603, (err as Error).message));
    });
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if ((req.url ?? '').split('?')[0] !== '/mcp') return sendJson(res, 404, { error: 'the MCP endpoint is /mcp' });
    if (options.latencyMs) await sleep(options.latencyMs);
    const header = req.headers['mcp-session-id'];
    const key = Array.isArray(header) ? header[0] : header;
    const message = req.method === 'POST' ? parseMessage(await readText(req)) : undefined;
    if (req.method === 'POST') {
      if (!message) return sendJson(res, 400, rpcError(null, -32700, 'Parse error'));
      if (message.method === 'initialize' && key === undefined) {
        const h = ids.hex(32);
        const id = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
        sessions.set(id, newSession());
        return sendJson(
          res,
          200,
          { jsonrpc: '2.0', id: message.id, result: initializeResult(message.params?.protocolVersion) },
          { 'mcp-session-id': id },
        );
      }
    }
    if (key === undefined) return sendJson(res, 400, rpcError(null, -32000, 'Bad Request: no Mcp-Session-Id header'));
    const session = sessions.get(key);
    if (!session) return sendJson(res, 404, rpcError(null, -32001, 'Session not found'));
    if (req.method === 'GET') return openStream(session, res, key);
    if (req.method === 'DELETE') {
      sessions.delete(key);
      session.stream?.end();
      res.writeHead(200).end();
      return;
    }
    return post(session, message as Message, res);
  };
  const { url } = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    url: `${url}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions.values()) s.stream?.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function newSession(): Session {
  const session: Session = {
    level: undefined,
    subscriptions: new Set(),
    stream: undefined,
    cancelled: new Set(),
    push: (message) => session.stream?.write(`data: ${JSON.stringify(message)}\n\n`),
  };
  return session;
}

/** A JSON-RPC message, or undefined for a body that is none (a batch is not one: MCP 2025-06-18 dropped batching). */
function parseMessage(text: string): Message | undefined {
  try {
    const json = JSON.parse(text) as unknown;
    return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Message) : undefined;
  } catch {
    return undefined;
  }
}

function openStream(session: Session, res: ServerResponse, key: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': key });
  res.flushHeaders();
  session.stream = res;
  res.on('close', () => {
    if (session.stream === res) session.stream = undefined;
  });
}

/** A message POSTed in a session: a notification or a client's answer is accepted; a request is answered. */
async function post(session: Session, message: Message, res: ServerResponse): Promise<void> {
  if (message.id === undefined || message.method === undefined) {
    if (message.method === 'notifications/cancelled') session.cancelled.add(JSON.stringify(message.params?.requestId));
    res.writeHead(202).end();
    return;
  }
  const params = message.params ?? {};
  if (message.method === 'tools/call' && params.name === 'long-running-operation') return longRunning(session, message, res);
  try {
    sendJson(res, 200, { jsonrpc: '2.0', id: message.id, result: answer(message.method, params, session) });
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
    sendJson(res, 200, rpcError(message.id, err.rpcCode, err.message));
  }
}

/** Counts through its steps on the request's own SSE stream: progress for a caller that asked, then the result, unless cancelled. */
async function longRunning(session: Session, message: Message, res: ServerResponse): Promise<void> {
  const args = (message.params?.arguments ?? {}) as { duration?: number; steps?: number };
  const steps = Math.max(1, Math.min(20, Number(args.steps ?? 5)));
  const stepMs = (Math.max(0, Math.min(10, Number(args.duration ?? 1))) * 1000) / steps;
  const token = (message.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
  const key = JSON.stringify(message.id);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (m: unknown) => res.write(`data: ${JSON.stringify(m)}\n\n`);
  for (let step = 1; step <= steps; step++) {
    await sleep(stepMs);
    // Cancelled: the work stops, and no result is sent (the client has stopped waiting for one).
    if (session.cancelled.has(key) || res.destroyed) return void res.end();
    if (token !== undefined)
      send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: step, total: steps } });
  }
  send({
    jsonrpc: '2.0',
    id: message.id,
    result: { content: [{ type: 'text', text: `Long running operation completed after ${steps} steps.` }] },
  });
  res.end();
}
