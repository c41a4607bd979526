import { type FetchLike, ServerResponseError, type StreamEvent, StreamReader } from '../kit/index.js';

/** A JSON-RPC message as MCP sends it. */
export type McpMessage = Record<string, unknown> & { id?: string | number; method?: string; result?: unknown; error?: unknown };

/** What one POST came back with: its status, the answer to its request (if any), and what the server sent before it. */
export interface McpReply {
  status: number;
  response: McpMessage | undefined;
  /** Server messages that came on the request's own stream before its answer (progress, logging). */
  messages: McpMessage[];
  /** The session id the server issued or echoed. */
  sessionId: string | undefined;
}

/** A request on its way: its id, and its answer's status and body, or the SSE stream the answer will come on. */
export interface Sent {
  id: number;
  status: number;
  sessionId: string | undefined;
  json?: McpMessage | undefined;
  stream?: StreamReader | undefined;
}

/** The protocol version the probes ask for; a server may answer with another it supports. */
export const PROTOCOL_VERSION = '2025-11-25';

/**
 * An MCP client over Streamable HTTP, small on purpose: the probes need to see the transport (which stream an
 * answer came on, the session header, a 404 after DELETE) that an SDK client hides.
 */
export class McpClient {
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  private nextId = 1;

  constructor(
    readonly endpoint: string,
    readonly fetch: FetchLike = (url, init) => globalThis.fetch(url, init),
    readonly extraHeaders: Record<string, string> = {},
  ) {}

  /** The headers of a request in this session: the session id and protocol version once known. */
  headers(more: Record<string, string> = {}): Record<string, string> {
    return {
      ...this.extraHeaders,
      ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
      ...(this.protocolVersion ? { 'mcp-protocol-version': this.protocolVersion } : {}),
      ...more,
    };
  }

  /** `initialize`, then `notifications/initialized`: the session is open. Throws when the server refuses it. */
  async open(clientName = 'tapedeck-bench'): Promise<{ result: McpMessage; initializedStatus: number }> {
    const reply = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: clientName, version: '1' },
    });
    const result = reply.response?.result as McpMessage | undefined;
    if (reply.status !== 200 || !result) throw new ServerResponseError(reply.status, 'initialize', JSON.stringify(reply.response ?? {}));
    this.sessionId = reply.sessionId;
    this.protocolVersion = typeof result.protocolVersion === 'string' ? result.protocolVersion : undefined;
    return { result, initializedStatus: await this.notify('notifications/initialized') };
  }

  /** A request; resolves once its answer came (or its stream ended without one, or `waitMs` passed). */
  async request(
    method: string,
    params?: Record<string, unknown>,
    options: { waitMs?: number; headers?: Record<string, string> } = {},
  ): Promise<McpReply> {
    return answerOf(await this.send(method, params, options.headers), options.waitMs);
  }

  /** Sends a request and returns as soon as its answer starts: a stream to watch (progress) before `answerOf` (below). */
  async send(method: string, params?: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Sent> {
    const id = this.nextId++;
    const controller = new AbortController();
    const body = { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) };
    const res = await this.fetch(this.endpoint, this.postInit(body, headers, controller.signal));
    const sessionId = res.headers.get('mcp-session-id') ?? undefined;
    if (!(res.headers.get('content-type') ?? '').includes('text/event-stream'))
      return { id, status: res.status, sessionId, json: parse(await res.text()) };
    return { id, status: res.status, sessionId, stream: await StreamReader.follow(res, controller) };
  }

  /** A notification: the server answers 202 with no body. */
  async notify(method: string, params?: Record<string, unknown>): Promise<number> {
    const res = await this.fetch(this.endpoint, this.postInit({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) }));
    await res.arrayBuffer();
    return res.status;
  }

  /** DELETE: ends the session; its status. */
  async end(): Promise<number> {
    const res = await this.fetch(this.endpoint, { method: 'DELETE', headers: this.headers() });
    await res.arrayBuffer();
    return res.status;
  }

  private postInit(body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): RequestInit {
    return {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }),
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    };
  }
}

/** The standalone GET stream of the session (server notifications and requests), or the status it was refused with. */
export async function listen(client: McpClient): Promise<StreamReader | number> {
  const controller = new AbortController();
  const res = await client.fetch(client.endpoint, {
    method: 'GET',
    headers: client.headers({ accept: 'text/event-stream' }),
    signal: controller.signal,
  });
  if (res.status !== 200) {
    await res.arrayBuffer();
    return res.status;
  }
  return StreamReader.follow(res, controller);
}

/** The answer to a sent request: at once for a JSON body; from its stream, with what came before it, for SSE. */
export async function answerOf(sent: Sent, waitMs = 30_000): Promise<McpReply> {
  const { id, status, sessionId, stream } = sent;
  if (!stream) return { status, sessionId, response: sent.json, messages: [] };
  const isAnswer = (e: StreamEvent) => e.data.id === id && e.data.method === undefined;
  const answer = await stream.waitFor(isAnswer, waitMs);
  stream.close();
  const before = answer ? stream.events.slice(0, stream.events.indexOf(answer)) : stream.events;
  const messages = before.map((e) => e.data as McpMessage).filter((m) => Object.keys(m).length > 0);
  return { status, sessionId, response: answer?.data as McpMessage | undefined, messages };
}

function parse(text: string): McpMessage | undefined {
  if (text === '') return undefined;
  try {
    const json = JSON.parse(text) as unknown;
    return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as McpMessage) : undefined;
  } catch {
    return undefined;
  }
}
