/** The embedded MCP server's catalogue and plain methods: what `tools/list`, `resources/read` and the rest answer. */
import { LEVELS } from '../levels.js';

export const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];

export const TOOLS = [
  {
    name: 'echo',
    description: 'Echoes back the message it is given',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  },
  {
    name: 'long-running-operation',
    description: 'Counts through steps over a duration, telling progress to a caller that asked for it',
    inputSchema: {
      type: 'object',
      properties: { duration: { type: 'number', description: 'seconds' }, steps: { type: 'number' } },
    },
  },
];

const RESOURCES = [{ uri: 'demo://greeting', name: 'greeting', mimeType: 'text/plain' }];
const PROMPTS = [{ name: 'greet', description: 'A greeting for someone', arguments: [{ name: 'name', required: false }] }];
const NAMES = ['alice', 'bob', 'carol'];

/** A JSON-RPC error as a method's outcome. */
export class RpcError extends Error {
  constructor(
    readonly rpcCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** What a session keeps: its log level and subscriptions, and a way to send on its GET stream. */
export interface SessionState {
  level: string | undefined;
  subscriptions: Set<string>;
  /** Sends a notification on the session's GET stream, if one is open. */
  push(message: Record<string, unknown>): void;
}

const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

/** The answer to `initialize`: the version asked when supported, and every capability the simulator has. */
export function initializeResult(asked: unknown): Record<string, unknown> {
  const version = typeof asked === 'string' && SUPPORTED_VERSIONS.includes(asked) ? asked : (SUPPORTED_VERSIONS[0] as string);
  return {
    protocolVersion: version,
    capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, logging: {}, completions: {} },
    serverInfo: { name: 'tapedeck-mcp-simulator', version: '1.0.0' },
  };
}

/** A plain method's result (long-running calls are streamed by the server); throws RpcError for a JSON-RPC error. */
export function answer(method: string, params: Record<string, unknown>, session: SessionState): Record<string, unknown> {
  switch (method) {
    case 'ping':
      return {};
    case 'tools/list':
      return { tools: TOOLS };
    case 'tools/call': {
      const args = (params.arguments ?? {}) as Record<string, unknown>;
      if (params.name !== 'echo') throw new RpcError(-32602, `Unknown tool: ${String(params.name)}`);
      // Invalid arguments are the tool's error (isError), which the model can see, not a protocol error.
      if (typeof args.message !== 'string') return { ...text('Invalid arguments: message must be a string'), isError: true };
      return text(`Echo: ${args.message}`);
    }
    case 'resources/list':
      return { resources: RESOURCES };
    case 'resources/read': {
      if (!RESOURCES.some((r) => r.uri === params.uri)) throw new RpcError(-32002, `Resource not found: ${String(params.uri)}`);
      return { contents: [{ uri: params.uri, mimeType: 'text/plain', text: 'Hello from the simulator' }] };
    }
    case 'resources/subscribe':
      session.subscriptions.add(String(params.uri));
      // The resource changes soon after: the subscriber hears of it on its GET stream.
      setTimeout(() => session.push({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: params.uri } }), 50);
      return {};
    case 'resources/unsubscribe':
      session.subscriptions.delete(String(params.uri));
      return {};
    case 'prompts/list':
      return { prompts: PROMPTS };
    case 'prompts/get': {
      if (params.name !== 'greet') throw new RpcError(-32602, `Unknown prompt: ${String(params.name)}`);
      const who = ((params.arguments ?? {}) as { name?: string }).name ?? 'there';
      return { messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${who}.` } }] };
    }
    case 'logging/setLevel':
      return setLevel(params, session);
    case 'completion/complete': {
      const value = String((params.argument as { value?: unknown } | undefined)?.value ?? '');
      const values = NAMES.filter((n) => n.startsWith(value));
      return { completion: { values, total: values.length, hasMore: false } };
    }
    default:
      throw new RpcError(-32601, `Method not found: ${method}`);
  }
}

/** Sets the level, then logs one message at every level, of which only those at or above it go out. */
function setLevel(params: Record<string, unknown>, session: SessionState): Record<string, unknown> {
  const level = String(params.level);
  if (!(LEVELS as readonly string[]).includes(level)) throw new RpcError(-32602, `Invalid level: ${level}`);
  session.level = level;
  setTimeout(() => {
    for (const l of LEVELS.slice((LEVELS as readonly string[]).indexOf(level)))
      session.push({ jsonrpc: '2.0', method: 'notifications/message', params: { level: l, logger: 'simulator', data: `a ${l} message` } });
  }, 20);
  return {};
}
