import type { Body, Interaction } from '../schema.js';
import { PLACEHOLDER } from './config.js';
import { isScheme, kept, type Under } from './secrecy.js';
import { shannonEntropy } from './secret-rules.js';
import { spanning } from './split-secrets.js';
import type { Redaction } from './state.js';
import { CHALLENGE_HEADERS, challengeSecrets, protocolSecrets, queryPair, secretQueryValue } from './values.js';

/** Secret values found, each with the name its placeholder gets. */
type Found = Map<string, string>;

/** Records a secret value under the name its placeholder gets, with the forms it may take elsewhere. */
export function collect(found: Found, name: string, value: string): void {
  if (!value || PLACEHOLDER.test(value)) return;
  if (!found.has(value)) found.set(value, name);
  // `Bearer abc`, `HermesRoom abc`: the credential alone may appear elsewhere too.
  const space = value.indexOf(' ');
  if (space > 0) {
    const credential = value.slice(space + 1).trim();
    if (credential && !found.has(credential)) found.set(credential, name);
  }
  // A value found URL-encoded (a form body, a fragment) is a secret decoded too.
  if (value.includes('%')) {
    try {
      const decoded = decodeURIComponent(value.replace(/\+/g, ' '));
      if (!found.has(decoded)) found.set(decoded, name);
    } catch {
      // Not URL-encoding after all.
    }
  }
}

function collectFindings(r: Redaction, found: Found, text: string): void {
  if (text.length < 6) return;
  for (const f of r.finder.findingsOf(text)) collect(found, f.kind, f.value);
}

function collectHeader(r: Redaction, found: Found, name: string, v: string): void {
  const secrecy = r.secrecy.header(name);
  if (secrecy === 'none' || kept(secrecy, v)) {
    const lower = name.toLowerCase();
    if (lower === 'sec-websocket-protocol') for (const p of protocolSecrets(v)) collect(found, 'sec-websocket-protocol', p);
    if (CHALLENGE_HEADERS.has(lower)) for (const [param, value] of challengeSecrets(v)) collect(found, param, value);
    collectFindings(r, found, v);
    return;
  }
  const lower = name.toLowerCase();
  collect(found, lower, v);
  if (lower === 'cookie' || lower === 'set-cookie') {
    for (const part of v.split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0) collect(found, lower, part.slice(eq + 1).trim());
    }
  }
}

// Walked on every live request a replay matches: no entry pairs, no one-value lists (own names only, as `Object.entries`).
export function collectHeaders(r: Redaction, found: Found, headers: Record<string, string | string[] | undefined>): void {
  for (const name of Object.keys(headers)) {
    const raw = headers[name];
    if (raw === undefined) continue;
    if (typeof raw === 'string') collectHeader(r, found, name, raw);
    else for (const v of raw) collectHeader(r, found, name, v);
  }
}

// Read pair by pair as `scrubPath` writes them: a kept pair is searched as written, name and value together.
export function collectQuery(r: Redaction, found: Found, path: string): void {
  const q = path.indexOf('?');
  const pathname = q === -1 ? path : path.slice(0, q);
  collectFindings(r, found, pathname);
  for (const [name, value] of r.secrecy.routeSecrets(pathname)) collect(found, name, value);
  if (q === -1) return;
  for (const pair of path.slice(q + 1).split('&')) {
    const [name, value] = queryPair(pair);
    if (secretQueryValue(r.secrecy, name, value)) collect(found, name, value);
    else collectFindings(r, found, pair);
  }
}

/**
 * Every leaf under a secret name that could be a credential is a secret, whatever its type (decision 0016); every other
 * string and key is searched for shapes. A leaf nested deeper under the name (`"auth": {"key": "…"}`) is replaced where
 * it stands, but sought everywhere else only when it looks like a credential, not a word; the name of a scheme under
 * `auth` (`"type": "bearer"`) is kept, as clients read it.
 */
export function collectJson(r: Redaction, found: Found, value: unknown, under?: Under, nested = false): void {
  if (Array.isArray(value)) for (const v of value) collectJson(r, found, v, under, under !== undefined);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      collectFindings(r, found, k);
      if (under !== undefined) collectJson(r, found, v, r.secrecy.within(under, k), true);
      else collectJson(r, found, v, r.secrecy.underName(k));
    }
  } else if (typeof value === 'string') {
    if (under === undefined || kept(under.secrecy, value)) collectFindings(r, found, value);
    else if (isScheme(under, value)) return;
    else if (!nested || r.everyNamedLeaf || looksRandom(value)) collect(found, under.name, value);
  } else if (typeof value === 'number' && under !== undefined && (!nested || r.everyNamedLeaf)) {
    const text = String(value);
    if (!kept(under.secrecy, text)) collect(found, under.name, text);
  }
}

export function collectText(r: Redaction, found: Found, text: string): void {
  const json = r.pass.jsonOf(text);
  if (json !== undefined) collectJson(r, found, json);
  else collectFindings(r, found, text);
}

function collectBody(r: Redaction, found: Found, body: Body | undefined): void {
  if (!body || 'omitted' in body) return;
  if ('json' in body) collectJson(r, found, body.json);
  else if ('text' in body) collectText(r, found, body.text);
  else collectFindings(r, found, Buffer.from(body.base64, 'base64').toString('latin1'));
}

/** Every secret an interaction holds: in its headers, query, bodies, SSE items and frames (split across them too), failure. */
export function secretsOf(r: Redaction, i: Interaction): Found {
  const found: Found = new Map();
  collectHeaders(r, found, i.request.headers);
  collectQuery(r, found, i.request.path);
  if (i.response) collectHeaders(r, found, i.response.headers);
  if (i.response?.trailers) collectHeaders(r, found, i.response.trailers);
  collectBody(r, found, i.request.body);
  collectBody(r, found, i.response?.body);
  const events = i.response?.stream?.events ?? [];
  for (const e of events) {
    if (e.data) collectText(r, found, e.data);
    for (const field of [e.id, e.event, e.comment]) if (field) collectFindings(r, found, field);
  }
  const findingsOf = (text: string) => r.finder.findingsOf(text);
  for (const { stream, findings } of r.pass.searched(events, r.pass.itemsBefore(events)))
    for (const f of spanning(stream, findings, findingsOf)) collect(found, f.kind, f.value);
  const frames = i.response?.websocket?.frames ?? [];
  for (const { stream, findings } of r.pass.searched(r.pass.framesAsItems(frames), r.pass.framesBefore(frames)))
    for (const f of spanning(stream, findings, findingsOf)) collect(found, f.kind, f.value);
  for (const fr of frames) {
    if (fr.json !== undefined) collectJson(r, found, fr.json);
    if (fr.text !== undefined) collectText(r, found, fr.text);
    if (fr.close) collectFindings(r, found, fr.close.reason);
  }
  if (i.failure) collectFindings(r, found, i.failure.message);
  return found;
}

/** A value with the length and mix of a credential rather than a word (`Xq7…`, not `bearer`). */
function looksRandom(value: string): boolean {
  return value.length >= 8 && shannonEntropy(value) >= 3 && /\d/.test(value) && /[A-Za-z]/.test(value);
}
