import { createHash } from 'node:crypto';
import { type Body, decodeBody, type Interaction, readJson } from '../cassette/index.js';

/** A request as the replayer sees it, from any front door. */
export interface ReplayRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array;
  /** The body's sha256, when a front door worked it out as the body streamed in (a large one). */
  bodySha256?: string | undefined;
}

/**
 * Bodies larger than this are matched by their digest, not read: an upload of
 * tens of megabytes parsed, redacted and keyed would hold the event loop (and
 * every other client) for seconds. Such a body is not searched for secrets.
 */
export const LARGE_BODY = 1024 * 1024;

/** A large body's shape: its digest and size, the same for a live request and a recording. */
export const largeBodyShape = (sha256: string, bytes: number) => ({ largeBody: { bytes, sha256 } });

const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export interface MatchOptions {
  /** Body fields to ignore, as dot paths; `*` matches any key or index (`data.*.id`). */
  ignoreBodyPaths?: readonly string[];
  /** Query parameters to ignore. */
  ignoreQuery?: readonly string[];
  /** Headers that must match too (all others are ignored). */
  matchHeaders?: readonly string[];
  /** Rewrites a parsed JSON body before comparison, e.g. to blank client noise. */
  normalizeBody?: (body: unknown, request: { method: string; pathname: string }) => unknown;
  /** Rewrites the query before comparison. */
  normalizeQuery?: (query: URLSearchParams) => URLSearchParams;
}

/** The comparable form of a request: every field that takes part in matching. */
export interface RequestShape {
  method: string;
  pathname: string;
  query: [string, string][];
  body: unknown;
  headers: [string, string][];
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** State-changing requests anchor the replay timeline; reads do not. */
export function isMutating(method: string): boolean {
  return MUTATING.has(method.toUpperCase());
}

function dropPath(value: unknown, path: string[]): unknown {
  if (path.length === 0 || value === null || typeof value !== 'object') return value;
  const [head, ...rest] = path as [string, ...string[]];
  if (Array.isArray(value)) {
    return value.flatMap((v, i) => (head === '*' || head === String(i) ? (rest.length === 0 ? [] : [dropPath(v, rest)]) : [v]));
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (head === '*' || head === k) {
      if (rest.length > 0) out[k] = dropPath(v, rest);
    } else {
      out[k] = v;
    }
  }
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** JSON bodies compare as structure, other text as text, anything else as bytes; a large one by its digest. */
function bodyShape(bytes: Uint8Array, rewrite: (s: string) => string, sha256?: string): unknown {
  if (bytes.byteLength === 0) return undefined;
  if (bytes.byteLength > LARGE_BODY) return largeBodyShape(sha256 ?? sha256Of(bytes), bytes.byteLength);
  let text: string;
  try {
    text = rewrite(utf8.decode(bytes));
  } catch {
    return { base64: Buffer.from(bytes).toString('base64') };
  }
  return textShape(text);
}

function textShape(text: string): unknown {
  const read = readJson(text);
  return read ? read.json : { text };
}

/** A multipart body's boundary: clients draw a new one per request (curl, browsers), so it never takes part in matching. */
function multipartBoundary(contentType: string | string[] | undefined): string | undefined {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  if (!value?.toLowerCase().startsWith('multipart/')) return undefined;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(value);
  const boundary = m?.[1] ?? m?.[2];
  return boundary && boundary.length >= 8 ? boundary : undefined;
}

// Paths that `new URL` leaves as they are (no escape, fragment, backslash or
// character it would encode; no dot segment, checked apart): split without building a URL.
const PLAIN_PATH = /^\/[A-Za-z0-9_.~!$&()*+,;=:@/-]*(?:\?[A-Za-z0-9_.~!$&()*+,;=:@/?-]*)?$/;

function isPlainPath(path: string): boolean {
  return PLAIN_PATH.test(path) && !path.includes('/.');
}

/**
 * A request target as a URL. An origin-form target is appended to the origin,
 * not resolved against it: `//x` is a path, not a host named x.
 */
function urlOf(path: string): URL | undefined {
  try {
    return path.startsWith('/') ? new URL(`http://replay${path}`) : new URL(path, 'http://replay');
  } catch {
    return undefined;
  }
}

function splitPath(path: string, plain = isPlainPath(path)): { pathname: string; query: URLSearchParams } {
  if (!plain) {
    const url = urlOf(path);
    return url ? { pathname: url.pathname, query: url.searchParams } : { pathname: path, query: new URLSearchParams() };
  }
  const q = path.indexOf('?');
  // URLSearchParams drops one leading `?`, as `url.search` does.
  return q === -1
    ? { pathname: path, query: new URLSearchParams() }
    : { pathname: path.slice(0, q), query: new URLSearchParams(path.slice(q)) };
}

/** The path of a request without its query: every request of a group shares it, so shapes can wait for their path's first request. */
export function pathnameOf(path: string): string {
  if (!isPlainPath(path)) return urlOf(path)?.pathname ?? path;
  const q = path.indexOf('?');
  return q === -1 ? path : path.slice(0, q);
}

/** Builds the comparable shape of a request; `rewrite` maps strings (the client's folders to placeholders). */
export function shapeOf(req: ReplayRequest, options: MatchOptions, rewrite: (s: string) => string): RequestShape {
  const boundary = multipartBoundary(req.headers['content-type']);
  const body = bodyShape(req.body, boundary ? (t) => rewrite(t).split(boundary).join('<boundary>') : rewrite, req.bodySha256);
  return shapeWith(req, body, options);
}

function shapeWith(req: Omit<ReplayRequest, 'body'>, parsedBody: unknown, options: MatchOptions): RequestShape {
  // Paths are never rewritten (decision 0006): they are the server's names, not the machine's.
  const method = req.method.toUpperCase();
  const { pathname, query } = queryOf(req.path, options);
  return {
    method,
    pathname,
    query,
    body: bodyAfterOptions(parsedBody, method, pathname, options),
    headers: matchedHeaders(req, options),
  };
}

/** The path's pathname and its query as compared: normalized, ignored keys dropped, sorted by key. */
function queryOf(path: string, options: MatchOptions): { pathname: string; query: [string, string][] } {
  const plain = isPlainPath(path);
  // Most requests a replay serves have a plain path: its query is read as URLSearchParams would, without one.
  if (plain && !options.normalizeQuery) {
    const q = path.indexOf('?');
    if (q === -1) return { pathname: path, query: [] };
    return { pathname: path.slice(0, q), query: comparedQuery(plainQuery(path.slice(q + 1)), options.ignoreQuery) };
  }
  const { pathname, query: parsed } = splitPath(path, plain);
  const query = options.normalizeQuery ? options.normalizeQuery(new URLSearchParams(parsed)) : parsed;
  return { pathname, query: comparedQuery([...query.entries()], options.ignoreQuery) };
}

/** A plain query's pairs (no escapes: see PLAIN_PATH), split as URLSearchParams splits them. */
function plainQuery(query: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (const piece of query.split('&')) {
    if (piece === '') continue;
    const text = piece.includes('+') ? piece.replaceAll('+', ' ') : piece;
    const eq = text.indexOf('=');
    pairs.push(eq === -1 ? [text, ''] : [text.slice(0, eq), text.slice(eq + 1)]);
  }
  return pairs;
}

/** The pairs as compared: ignored keys dropped, sorted by key (a stable sort keeps repeated keys in order). */
function comparedQuery(pairs: [string, string][], ignore: readonly string[] | undefined): [string, string][] {
  const kept = ignore?.length ? pairs.filter(([k]) => !ignore.includes(k)) : pairs;
  return kept.length > 1 ? kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : kept;
}

function bodyAfterOptions(parsedBody: unknown, method: string, pathname: string, options: MatchOptions): unknown {
  let body = parsedBody;
  if (options.normalizeBody) body = options.normalizeBody(body, { method, pathname });
  for (const p of options.ignoreBodyPaths ?? []) body = dropPath(body, p.split('.'));
  return body;
}

function matchedHeaders(req: Omit<ReplayRequest, 'body'>, options: MatchOptions): [string, string][] {
  if (!options.matchHeaders) return [];
  return options.matchHeaders.map((name): [string, string] => {
    const v = req.headers[name.toLowerCase()];
    return [name.toLowerCase(), Array.isArray(v) ? v.join(', ') : (v ?? '')];
  });
}

/**
 * The shape of a recorded request, through the same normalisation as live ones.
 * A stored JSON or text body is shaped from the stored value: going through its
 * bytes gave the same shape at four copies per interaction when a replay opens.
 */
export function recordedShape(i: Interaction, options: MatchOptions): RequestShape {
  const body = i.request.body as Body | undefined;
  if (body && 'omitted' in body) return shapeWith(i.request, largeBodyShape(body.omitted.sha256, body.omitted.bytes), options);
  const direct = !options.normalizeBody && !multipartBoundary(i.request.headers['content-type']);
  if (direct && body && 'text' in body && body.text.length * 3 > LARGE_BODY)
    return shapeOf({ ...i.request, body: decodeBody(body) }, options, (s) => s);
  if (direct && body && 'json' in body) {
    // A recorded JSON body is its bytes exactly (decision 0002): a large one is matched by their digest, as a live one is.
    const text = JSON.stringify(body.json);
    if (text.length <= LARGE_BODY / 3 || Buffer.byteLength(text) <= LARGE_BODY) return shapeWith(i.request, body.json, options);
    return shapeWith(i.request, largeBodyShape(sha256Of(Buffer.from(text)), Buffer.byteLength(text)), options);
  }
  if (direct && body && 'text' in body && body.text !== '' && body.text.isWellFormed())
    return shapeWith(i.request, textShape(body.text), options);
  return shapeOf({ ...i.request, body: decodeBody(body) }, options, (s) => s);
}

/** JSON with sorted keys: equal values give equal keys (written by hand: no allocation per node). */
export function stableKey(value: unknown): string {
  if (value === null || typeof value !== 'object') return value === undefined ? '' : JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + stableKey(value[i]);
    return `${out}]`;
  }
  const keys = Object.keys(value).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    out += `${i ? ',' : ''}${JSON.stringify(k)}:${stableKey((value as Record<string, unknown>)[k])}`;
  }
  return `${out}}`;
}

/** The group key of a request shape; identical requests share it. */
export function shapeKey(s: RequestShape): string {
  let q = '';
  for (const [k, v] of s.query) q += `${encodeURIComponent(k)}=${encodeURIComponent(v)}&`;
  let h = '';
  for (const [k, v] of s.headers) h += `${k}:${v}\n`;
  return `${s.method} ${s.pathname}?${q}\n${stableKey(s.body)}\n${h}`;
}
