import type { FetchLike } from '../../suite/json-client.js';
import { StreamReader } from '../../suite/stream-reader.js';
import { ServerResponseError } from './errors.js';

/** The origin header the bench sends on every request (the server's internal sentinel). */
export const INTERNAL_ORIGIN = 'omnigent://internal';

export type { FetchLike };

/** A small JSON client for the session API. */
export class SessionClient {
  constructor(
    readonly baseUrl: string,
    readonly fetch: FetchLike = (url, init) => globalThis.fetch(url, init),
  ) {}

  async call(method: 'GET' | 'POST' | 'DELETE' | 'PATCH', path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const res = await this.fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        origin: INTERNAL_ORIGIN,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, json };
  }

  /** A request that must succeed (2xx); anything else is a ServerResponseError. */
  async ok<T = Record<string, unknown>>(method: 'GET' | 'POST' | 'DELETE' | 'PATCH', path: string, body?: unknown): Promise<T> {
    const { status, json } = await this.call(method, path, body);
    if (status < 200 || status >= 300) throw new ServerResponseError(status, `${method} ${path}`, JSON.stringify(json));
    return json as T;
  }
}

/** Opens a session's stream and resolves once the server's subscription-ready heartbeat arrived. */
export async function openSessionStream(baseUrl: string, sessionId: string, fetch: FetchLike, timeoutMs: number): Promise<StreamReader> {
  const controller = new AbortController();
  const res = await fetch(`${baseUrl}/v1/sessions/${sessionId}/stream`, {
    signal: controller.signal,
    headers: { origin: INTERNAL_ORIGIN, accept: 'text/event-stream' },
  });
  const reader = await StreamReader.follow(res, controller);
  await reader.waitFor(() => true, timeoutMs);
  return reader;
}
