import type { IncomingMessage, ServerResponse } from 'node:http';
import { readText, sendJson, simulatorServer } from '../../../net/http-json.js';
import { listen } from '../../../net/listen.js';
import { SeededIds } from '../../../net/seeded-ids.js';
import type { RunningServer } from '../../family.js';
import { messageSchema } from '../schemas.js';
import { type TaskEvent, Tasks } from './tasks.js';

export interface A2aSimulatorOptions {
  seed?: number;
  port?: number;
  host?: string;
  latencyMs?: number;
  /** How long a task asked to work slowly works before it completes (unless cancelled). */
  slowMs?: number;
}

type Json = Record<string, unknown>;
export const JSONRPC_PATH = '/a2a/jsonrpc';
const CARD_PATH = '/.well-known/agent-card.json';
const STABLE_ORIGIN = 'http://a2a-simulator.tapedeck.invalid';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const FINAL_UPDATE = /"state":"TASK_STATE_(COMPLETED|FAILED|CANCELED|REJECTED|INPUT_REQUIRED|AUTH_REQUIRED)"/;

function card(base: string): Json {
  return {
    name: 'tapedeck A2A simulator',
    description: 'Says back what it was told, as an artifact in two chunks; works slowly when asked, until cancelled.',
    supportedInterfaces: [{ url: `${base}${JSONRPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Says back what it was told', tags: ['echo'] }],
  };
}

/** Writes a task's events as SSE, one JSON-RPC response each, paced; ends after the one that ends or pauses the task. */
function streamTo(res: ServerResponse, id: unknown, latencyMs: number): (e: TaskEvent) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let chain = Promise.resolve();
  return (event) => {
    const text = JSON.stringify({ jsonrpc: '2.0', id, result: event });
    chain = chain.then(async () => {
      if (latencyMs) await sleep(latencyMs);
      if (res.destroyed || res.writableEnded) return;
      res.write(`data: ${text}\n\n`);
      if (event.statusUpdate && FINAL_UPDATE.test(text)) res.end();
    });
  };
}

/** Answers one JSON-RPC request: its result, or undefined when it streams its answer on `res` itself. */
async function answer(tasks: Tasks, msg: Json, res: ServerResponse, latency: number): Promise<Json | undefined> {
  const params = (msg.params ?? {}) as Json;
  const task = () => {
    const t = tasks.get(String(params.id));
    if (!t) throw new RpcError(-32001, `Task not found: ${String(params.id)}`);
    return t;
  };
  switch (msg.method) {
    case 'SendMessage':
    case 'SendStreamingMessage': {
      const parsed = messageSchema.safeParse(params.message);
      if (!parsed.success) throw new RpcError(-32602, `params.message: ${parsed.error.issues[0]?.message}`);
      if (msg.method === 'SendStreamingMessage') {
        tasks.start(parsed.data, streamTo(res, msg.id, latency));
        return undefined;
      }
      const started = tasks.start(parsed.data);
      const now = (params.configuration as Json | undefined)?.returnImmediately === true;
      while (!now && !tasks.isFinal(started)) await sleep(20);
      return tasks.view(started);
    }
    case 'GetTask':
      return tasks.view(task());
    case 'CancelTask': {
      const t = task();
      if (!tasks.cancel(t)) throw new RpcError(-32002, `Task ${t.id} is ${t.state} and cannot be canceled`);
      return tasks.view(t);
    }
    case 'SubscribeToTask': {
      const t = task();
      if (tasks.isFinal(t)) throw new RpcError(-32004, `Task ${t.id} is ${t.state}: nothing to subscribe to`);
      const send = streamTo(res, msg.id, latency);
      send({ task: tasks.view(t) });
      t.listeners.add(send);
      return undefined;
    }
    default:
      throw new RpcError(-32601, `Method not found: ${String(msg.method)}`);
  }
}

/**
 * An A2A 1.0 agent over JSON-RPC, for recording without one: the agent card, SendMessage, SendStreamingMessage,
 * GetTask, CancelTask and SubscribeToTask, JSON-RPC's errors with A2A's codes; a request without `A2A-Version: 1.0`
 * is refused as the SDKs refuse it. Ids come from the seed.
 */
export async function startA2aSimulator(options: A2aSimulatorOptions = {}): Promise<RunningServer> {
  const tasks = new Tasks(new SeededIds(options.seed ?? 1), options.slowMs ?? 5000);
  const latency = options.latencyMs ?? 0;
  let base = '';
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === CARD_PATH) return sendJson(res, 200, card(base));
    if (path !== JSONRPC_PATH || req.method !== 'POST') return sendJson(res, 404, { error: `A2A JSON-RPC is POST ${JSONRPC_PATH}` });
    const reply = (id: unknown, body: Json) => sendJson(res, 200, { jsonrpc: '2.0', id: id ?? null, ...body });
    let msg: Json;
    try {
      msg = JSON.parse(await readText(req)) as Json;
    } catch {
      return reply(null, { error: { code: -32700, message: 'Parse error: the body is not JSON' } });
    }
    if (typeof msg !== 'object' || msg === null || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string')
      return reply(msg?.id, { error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 request' } });
    if (req.headers['a2a-version'] !== '1.0') return reply(msg.id, { error: { code: -32009, message: 'A2A-Version 1.0 is required' } });
    try {
      const result = await answer(tasks, msg, res, latency);
      if (result !== undefined) reply(msg.id, { result: msg.method === 'SendMessage' ? { task: result } : result });
    } catch (err) {
      if (!(err instanceof RpcError)) throw err;
      reply(msg.id, { error: { code: err.code, message: err.message } });
    }
  };
  const server = simulatorServer(handle);
  const { url } = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  // Started without a port, as `bench record` starts it behind its proxy, it names a stable origin in its card, so a
  // re-recording is byte for byte the same (the probes' client reads only the endpoint's path); given a port
  // (`bench sim`), its own, for any client to dial.
  base = options.port === undefined ? STABLE_ORIGIN : url;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        tasks.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
