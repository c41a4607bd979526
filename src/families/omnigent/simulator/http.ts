import type { IncomingMessage } from 'node:http';
import { readJsonObject, sendJson } from '../../../net/http-json.js';

/** An error the simulator answers with, in one of the real server's two shapes. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

const CODE_STATUS: Record<string, number> = {
  invalid_input: 400,
  not_found: 404,
  already_exists: 409,
  conflict: 409,
  runner_unavailable: 503,
};

/** The app error shape: `{"error": {"code", "message"}}`. */
export function appError(code: keyof typeof CODE_STATUS, message: string): ApiError {
  return new ApiError(CODE_STATUS[code] ?? 500, { error: { code, message } });
}

/** The framework shape for routes that raise HTTP exceptions: `{"detail": "..."}`. */
export function detailError(status: number, detail: string): ApiError {
  return new ApiError(status, { detail });
}

/** The framework's request-validation shape (422). */
export function validationError(field: string, input: unknown): ApiError {
  return new ApiError(422, { detail: [{ type: 'missing', loc: ['body', field], msg: 'Field required', input }] });
}

export { sendJson };

/** The framework's answer to a body that is not a JSON object: 422 json_invalid. */
export const readJson = (req: IncomingMessage) =>
  readJsonObject(
    req,
    (text) => new ApiError(422, { detail: [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error', input: text.slice(0, 100) }] }),
  );

/** Cursor pagination over a list, in the `PaginatedList` envelope. */
export function paginate<T extends { id: string }>(
  all: T[],
  query: URLSearchParams,
  defaultLimit: number,
  map: (t: T) => unknown = (t) => t,
) {
  const limit = Math.min(1000, Math.max(1, Number(query.get('limit') ?? defaultLimit) || defaultLimit));
  const ordered = query.get('order') === 'desc' ? [...all].reverse() : all;
  const after = query.get('after');
  const start = after ? ordered.findIndex((t) => t.id === after) + 1 : 0;
  const page = ordered.slice(start, start + limit);
  return {
    object: 'list',
    data: page.map(map),
    first_id: page[0]?.id ?? null,
    last_id: page[page.length - 1]?.id ?? null,
    has_more: start + limit < ordered.length,
  };
}
