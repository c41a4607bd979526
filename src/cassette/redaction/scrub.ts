import type { Body, SseItem } from '../schema.js';
import { type InteractionVisitor, mapShared } from '../visit.js';
import { PLACEHOLDER, redactionPlaceholder } from './config.js';
import { isScheme, kept, type Under } from './secrecy.js';
import { type SecretEntry, secretsIn } from './secret-index.js';
import type { SecretFinding } from './secret-rules.js';
import { scrubSplit, scrubSplitFrames } from './split.js';
import type { Redaction } from './state.js';
import { queryPair, scrubProtocols, secretQueryValue } from './values.js';

/** Every spelling of every secret a scrub replaces, longest first. */
type Secrets = [string, string][];

/** Replaces every known secret (in each of its spellings) and every finding of the rules in a string. */
export function scrub(r: Redaction, text: string, secrets: Secrets): string {
  let out = text;
  for (const [value, name] of secretsIn(text, secrets, redactionPlaceholder))
    if (out.includes(value)) out = out.split(value).join(redactionPlaceholder(name));
  if (out.length < 6) return out;
  // A header value is scrubbed on every live request the replayer matches: its findings are looked up once.
  const findings = r.finder.findingsOf(out);
  for (let k = findings.length - 1; k >= 0; k--) {
    const f = findings[k] as SecretFinding;
    out = `${out.slice(0, f.start)}${redactionPlaceholder(f.kind)}${out.slice(f.end)}`;
  }
  return out;
}

/** The value with its secrets replaced: the very value given when nothing in it changed, so no copy is made. */
export function scrubJson(r: Redaction, value: unknown, secrets: Secrets, under?: Under): unknown {
  if (Array.isArray(value)) return mapShared(value as unknown[], (v) => scrubJson(r, v, secrets, under));
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    let changed = false;
    for (const entry of entries) {
      const [k, v] = entry;
      const cleanKey = scrub(r, k, secrets);
      const clean = scrubJson(r, v, secrets, under ? r.secrecy.within(under, k) : r.secrecy.underName(k));
      if (cleanKey !== k || clean !== v) {
        changed = true;
        entry[0] = cleanKey;
        entry[1] = clean;
      }
    }
    return changed ? Object.fromEntries(entries) : value;
  }
  if (typeof value === 'string') {
    if (under === undefined || kept(under.secrecy, value)) return scrub(r, value, secrets);
    // An empty value hides nothing: kept, as a client may test for it.
    return value === '' || PLACEHOLDER.test(value) || isScheme(under, value) ? value : redactionPlaceholder(under.name);
  }
  if (typeof value === 'number' && under !== undefined && !kept(under.secrecy, String(value))) return redactionPlaceholder(under.name);
  return value;
}

export function scrubHeader(r: Redaction, name: string, value: string, secrets: Secrets): string {
  const secrecy = r.secrecy.header(name);
  if (secrecy === 'none' || kept(secrecy, value)) {
    const clean = name.toLowerCase() === 'sec-websocket-protocol' ? scrubProtocols(value) : value;
    return scrub(r, clean, secrets);
  }
  return value === '' || PLACEHOLDER.test(value) ? value : redactionPlaceholder(name);
}

export function scrubPath(r: Redaction, path: string, secrets: Secrets): string {
  const q = path.indexOf('?');
  if (q === -1) return scrub(r, path, secrets);
  const params = path
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const [name, value] = queryPair(pair);
      return secretQueryValue(r.secrecy, name, value)
        ? `${pair.slice(0, pair.indexOf('='))}=${encodeURIComponent(redactionPlaceholder(name))}`
        : scrub(r, pair, secrets);
    });
  return `${scrub(r, path.slice(0, q), secrets)}?${params.join('&')}`;
}

/** The byte spelling of a list, made once per list: every binary body of a recording is scrubbed with the same one. */
function asBytes(r: Redaction, secrets: Secrets): Secrets {
  let made = r.byteLists.get(secrets);
  if (!made || made.length !== secrets.length) {
    // In the list's scrub order (a grown list past 16 entries is not stored in it): by the length of the text.
    const order = secrets.map((_, k) => k).sort((a, b) => (secrets[b] as SecretEntry)[0].length - (secrets[a] as SecretEntry)[0].length);
    const bytes = order.map((k): [string, string] => {
      const [v, n] = secrets[k] as SecretEntry;
      return [Buffer.from(v, 'utf8').toString('latin1'), n];
    });
    made = { length: secrets.length, bytes };
    r.byteLists.set(secrets, made);
  }
  return made.bytes;
}

function scrubBody(r: Redaction, body: Body, secrets: Secrets): Body {
  if ('json' in body) return { json: scrubJson(r, body.json, secrets) };
  if ('text' in body) return { text: scrubText(r, body.text, secrets) };
  if ('omitted' in body) return body;
  const bytes = Buffer.from(body.base64, 'base64').toString('latin1');
  const clean = scrub(r, bytes, asBytes(r, secrets));
  return clean === bytes ? body : { base64: Buffer.from(clean, 'latin1').toString('base64') };
}

/**
 * Text that may be JSON is scrubbed as structure, each secret field getting
 * its own placeholder; the exact bytes are kept when nothing was secret.
 * Live requests go through the same function, so placeholders match.
 */
export function scrubText(r: Redaction, text: string, secrets: Secrets): string {
  const json = r.pass.jsonOf(text);
  if (json === undefined) return scrub(r, text, secrets);
  const clean = scrubJson(r, json, secrets);
  return clean === json ? text : JSON.stringify(clean);
}

/**
 * An SSE item scrubbed, every field of it; its recorded wire text goes when scrubbing changed the item (the
 * canonical form then carries the placeholders), and is scrubbed as text otherwise.
 */
function scrubEvent(r: Redaction, e: SseItem, global: Secrets): SseItem {
  const { raw, ...rest } = e;
  const out: SseItem = { ...rest };
  if (e.data !== undefined) out.data = scrubText(r, e.data, global);
  if (e.comment !== undefined) out.comment = scrub(r, e.comment, global);
  if (e.id !== undefined) out.id = scrub(r, e.id, global);
  if (e.event !== undefined) out.event = scrub(r, e.event, global);
  const changed = out.data !== e.data || out.comment !== e.comment || out.id !== e.id || out.event !== e.event;
  if (raw === undefined || changed) return out;
  return { ...out, raw: scrub(r, raw, global) };
}

/** The redaction pass: the path and its query, headers, bodies and frames, SSE items and the secrets split across them, failure messages. */
export function scrubVisitor(r: Redaction, global: Secrets): InteractionVisitor {
  return {
    path: (path) => scrubPath(r, path, global),
    header: (name, value) => scrubHeader(r, name, value, global),
    body: (body) => scrubBody(r, body, global),
    event: (e) => scrubEvent(r, e, global),
    events: (events) => scrubSplit(r, events, global),
    frames: (frames) => scrubSplitFrames(r, frames, global),
    note: (text) => scrub(r, text, global),
    reason: (text) => scrub(r, text, global),
  };
}
