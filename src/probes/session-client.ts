import { type Dispatcher, request } from 'undici';
import { ServerResponseError } from './errors.js';

/** The origin header the bench sends on every request (the server's internal sentinel). */
export const INTERNAL_ORIGIN = 'omnigent://internal';

/** A small JSON client for the session API; every request goes through one dispatcher. */
export class SessionClient {
  constructor(
    readonly baseUrl: string,
    readonly dispatcher: Dispatcher,
  ) {}

  async call(method: 'GET' | 'POST' | 'DELETE' | 'PATCH', path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const res = await request(`${this.baseUrl}${path}`, {
      method,
      dispatcher: this.dispatcher,
      headers: {
        origin: INTERNAL_ORIGIN,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.statusCode, json };
  }

  /** A request that must succeed (2xx); anything else is a ServerResponseError. */
  async ok<T = Record<string, unknown>>(method: 'GET' | 'POST' | 'DELETE' | 'PATCH', path: string, body?: unknown): Promise<T> {
    const { status, json } = await this.call(method, path, body);
    if (status < 200 || status >= 300) throw new ServerResponseError(status, `${method} ${path}`, JSON.stringify(json));
    return json as T;
  }
}
