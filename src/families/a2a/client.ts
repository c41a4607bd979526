import { type FetchLike, ServerResponseError, StreamReader } from '../kit/index.js';

type Json = Record<string, unknown>;

/** An answer as the probes judge it: its HTTP status and its JSON (a JSON-RPC response, or the card). */
export interface Reply {
  status: number;
  json: Json;
}

/** Where an agent card says its JSON-RPC endpoint is: the path of its JSONRPC interface's URL. */
export function jsonRpcPath(card: Json): string | undefined {
  const interfaces = Array.isArray(card.supportedInterfaces) ? (card.supportedInterfaces as Json[]) : [];
  const url = interfaces.find((i) => i.protocolBinding === 'JSONRPC')?.url;
  if (typeof url !== 'string') return undefined;
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return undefined;
  }
}

/**
 * A plain A2A 1.0 client over JSON-RPC: reads the agent card at `<base>/.well-known/agent-card.json`, then POSTs
 * JSON-RPC to the endpoint it names (its path, on `base`'s origin: the recording proxy's), `A2A-Version: 1.0` on each.
 */
export class A2aClient {
  endpoint: string | undefined;

  constructor(
    readonly base: string,
    readonly fetch: FetchLike = (url, init) => globalThis.fetch(url, init),
    readonly headers: Record<string, string> = {},
  ) {}

  private async json(res: Response): Promise<Reply> {
    const text = await res.text();
    try {
      return { status: res.status, json: JSON.parse(text) as Json };
    } catch {
      return { status: res.status, json: { text } };
    }
  }

  /** The agent card; the JSON-RPC endpoint it names is used from then on. */
  async card(): Promise<Reply> {
    const reply = await this.json(
      await this.fetch(`${this.base.replace(/\/$/, '')}/.well-known/agent-card.json`, { headers: this.headers }),
    );
    if (reply.status !== 200) throw new ServerResponseError(reply.status, 'GET /.well-known/agent-card.json', JSON.stringify(reply.json));
    const path = jsonRpcPath(reply.json);
    if (path !== undefined) this.endpoint = `${new URL(this.base).origin}${path}`;
    return reply;
  }

  private init(body: string, accept: string, signal?: AbortSignal): RequestInit {
    return {
      method: 'POST',
      headers: { ...this.headers, 'content-type': 'application/json', accept, 'a2a-version': '1.0' },
      body,
      ...(signal ? { signal } : {}),
    };
  }

  private url(): string {
    if (!this.endpoint) throw new Error('the agent card names no JSON-RPC endpoint');
    return this.endpoint;
  }

  /** Any body, as it is (a malformed one, for the refusal probe). */
  async raw(body: string): Promise<Reply> {
    return this.json(await this.fetch(this.url(), this.init(body, 'application/json')));
  }

  /** One request answered once. */
  call(method: string, params: Json, id: string): Promise<Reply> {
    return this.raw(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  }

  /** A streamed request, its SSE events (each a JSON-RPC response) followed as they come. */
  async stream(method: string, params: Json, id: string): Promise<StreamReader> {
    const controller = new AbortController();
    const res = await this.fetch(
      this.url(),
      this.init(JSON.stringify({ jsonrpc: '2.0', id, method, params }), 'text/event-stream', controller.signal),
    );
    return StreamReader.follow(res, controller);
  }
}

/** A user message as A2A 1.0 sends it. */
export const userMessage = (probe: string, text: string): Json => ({
  messageId: `msg-${probe}-1`,
  role: 'ROLE_USER',
  parts: [{ text }],
});
