/**
 * Values a client sends that a server gives back (an id it picked, a token naming its call): where the
 * recording redacted one, a replay answers with the live request's value, as the server would have (decision 0016).
 */

import { readJson } from '../cassette/index.js';

const PLACEHOLDER = /^<redacted:[a-z0-9_.-]+>$/;
const ANY_PLACEHOLDER = /<redacted:[a-z0-9_.-]+>/g;

/** A placeholder and the live value it stood for in the request, as the client sent it (a string or a number). */
export type Echoes = ReadonlyMap<string, string | number>;

/** The placeholders a recorded text holds. */
export function placeholdersIn(text: string): Set<string> {
  return new Set(text.match(ANY_PLACEHOLDER) ?? []);
}

/**
 * The live values behind the placeholders of a request's redacted form, found where the two differ: JSON leaves
 * standing alone and query values. A placeholder that stood for two different values is left out (which one a
 * server gave back cannot be told). Only placeholders in `wanted` (those the recorded answer holds) are looked for.
 */
export function echoesOf(
  live: { path: string; body: string },
  redacted: { path: string; body: string },
  wanted: ReadonlySet<string>,
): Echoes {
  const found = new Map<string, string | number | null>();
  const note = (placeholder: string, value: string | number) => {
    if (!wanted.has(placeholder)) return;
    const before = found.get(placeholder);
    found.set(placeholder, before === undefined || before === value ? value : null);
  };
  if (live.path !== redacted.path) queryEchoes(live.path, redacted.path, note);
  if (live.body !== redacted.body) {
    const [a, b] = [parsed(live.body), parsed(redacted.body)];
    if (a !== undefined && b !== undefined) jsonEchoes(a, b, note);
  }
  const out = new Map<string, string | number>();
  for (const [placeholder, value] of found) if (value !== null) out.set(placeholder, value);
  return out;
}

const parsed = (text: string): unknown => readJson(text)?.json;

function jsonEchoes(live: unknown, redacted: unknown, note: (placeholder: string, value: string | number) => void): void {
  if (typeof redacted === 'string') {
    if ((typeof live === 'string' || typeof live === 'number') && PLACEHOLDER.test(redacted) && live !== redacted) note(redacted, live);
    return;
  }
  if (!live || !redacted || typeof live !== 'object' || typeof redacted !== 'object') return;
  if (Array.isArray(live) !== Array.isArray(redacted)) return;
  // A redaction keeps keys and order; a key it changed (a secret spelt in a key) is not followed.
  for (const [k, v] of Object.entries(redacted)) if (Object.hasOwn(live, k)) jsonEchoes((live as Record<string, unknown>)[k], v, note);
}

function queryEchoes(live: string, redacted: string, note: (placeholder: string, value: string) => void): void {
  const [a, b] = [live.indexOf('?'), redacted.indexOf('?')];
  if (a === -1 || b === -1) return;
  const livePairs = [...new URLSearchParams(live.slice(a + 1))];
  const redactedPairs = [...new URLSearchParams(redacted.slice(b + 1))];
  if (livePairs.length !== redactedPairs.length) return;
  for (const [k, [name, value]] of redactedPairs.entries()) {
    const [liveName, liveValue] = livePairs[k] as [string, string];
    if (liveName === name && liveValue !== value && PLACEHOLDER.test(value)) note(value, liveValue);
  }
}

/**
 * A recorded text with each placeholder of `echoes` given back its live value. In JSON text a placeholder that is a
 * whole string takes the value as JSON (a number stays a number); elsewhere in JSON it is escaped as string content.
 * Outside JSON a value with a line break is not put back: it would end an SSE field or a header.
 */
export function restoreEchoes(text: string, echoes: Echoes, json: boolean): string {
  let out = text;
  for (const [placeholder, value] of echoes) {
    if (!out.includes(placeholder)) continue;
    if (json) {
      out = out.split(`"${placeholder}"`).join(JSON.stringify(value));
      out = out.split(placeholder).join(JSON.stringify(String(value)).slice(1, -1));
    } else if (!/[\r\n]/.test(String(value))) out = out.split(placeholder).join(String(value));
  }
  return out;
}
