import { StreamReader } from './stream-reader.js';

/** How a probe reaches the server: global fetch by default (which MSW intercepts), or any fetch-compatible function. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface JsonReply {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

/** A small JSON-and-SSE HTTP client for probes: any status comes back, every request carries the default headers. */
export class JsonClient {
  constructor(
    readonly baseUrl: string,
    readonly defaults: Record<string, string>,
    readonly fetch: FetchLike = (url, init) => globalThis.fetch(url, init),
  ) {}

  private init(method: string, body: unknown, headers: Record<string, string>, accept: string): RequestInit {
    return {
      method,
      headers: {
        ...this.defaults,
        accept,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    };
  }

  /** One JSON request; any status comes back (probes judge them). */
  async call(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonReply> {
    const res = await this.fetch(`${this.baseUrl}${path}`, this.init(method, body, headers, 'application/json'));
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      json = { text };
    }
    return { status: res.status, headers: res.headers, json };
  }

  /** A request answered with SSE, read as it arrives. */
  async stream(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<StreamReader> {
    const controller = new AbortController();
    const res = await this.fetch(`${this.baseUrl}${path}`, {
      ...this.init(method, body, headers, 'text/event-stream'),
      signal: controller.signal,
    });
    return StreamReader.follow(res, controller);
  }
}
