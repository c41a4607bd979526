import type { FetchLike } from '../kit/json-client.js';
import { StreamReader } from '../kit/stream-reader.js';
import { ServerResponseError } from './errors.js';

import { INTERNAL_ORIGIN } from './origin.js';

export type { FetchLike };
export { INTERNAL_ORIGIN };

/** A body as JSON when it is JSON, as text otherwise; empty is undefined. */
function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}

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
    return { status: res.status, json: parseJson(await res.text()) };
  }

  /** An upload (a multipart body, say); any status comes back, with the body as JSON when it is JSON. */
  async upload(path: string, body: Buffer, contentType: string): Promise<{ status: number; json: unknown }> {
    const res = await this.fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: { origin: INTERNAL_ORIGIN, accept: 'application/json', 'content-type': contentType },
      body: new Uint8Array(body),
    });
    return { status: res.status, json: parseJson(await res.text()) };
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
