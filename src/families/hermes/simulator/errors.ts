import type { IncomingMessage } from 'node:http';
import { readJsonObject, sendJson } from '../../../net/http-json.js';

/** An error the gateway answers with, in its envelope: `{"error": {message, type, param, code}}`. */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly type = status === 401 || status === 403 ? 'gateway_auth_error' : status >= 500 ? 'server_error' : 'invalid_request_error',
    /** Extra fields of the error object (the session-stream conflict names its run). */
    readonly extra: Record<string, unknown> = {},
    /** Extra response headers (Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  envelope(): unknown {
    return { error: { message: this.message, type: this.type, param: null, code: this.code, ...this.extra } };
  }
}

export { sendJson };

/** A body that is not a JSON object: 400 invalid_json. */
export const readBody = (req: IncomingMessage) =>
  readJsonObject(req, () => new GatewayError(400, 'invalid_json', 'Invalid JSON in request body'));

/** The text of the last user message of a chat or Responses input. */
export function lastUserText(input: unknown): string | undefined {
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return undefined;
  const user = [...input].reverse().find((m) => (m as { role?: unknown }).role === 'user') as { content?: unknown } | undefined;
  return typeof user?.content === 'string' ? user.content : undefined;
}
