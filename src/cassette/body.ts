import { createHash } from 'node:crypto';
import type { Body } from './schema.js';

/**
 * Bodies larger than this are kept as their size and digest only: a YAML
 * string cannot hold 400 MB, and no reviewer reads it (decision 0007).
 */
export const MAX_STORED_BODY = 64 * 1024 * 1024;

/** The mark that stands for a body too big to keep. */
export function omittedBody(bytes: number, sha256: string): Body {
  return { omitted: { bytes, sha256 } };
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
// C0 controls other than tab, line feed and carriage return make text unreadable in review.
const BINARY_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Nesting past this is kept as text: structure that deep is unreadable in
 * review, and every tree walk over it (YAML, schema, redaction) would risk the stack.
 */
export const MAX_JSON_DEPTH = 200;

/** A JSON object: not null, not an array. */
export const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** True when the brackets of a JSON text nest no deeper than `max` (strings skipped); one pass, no parse. */
export function jsonDepthWithin(text: string, max = MAX_JSON_DEPTH): boolean {
  return tooDeepAt(text, max) === -1;
}

/**
 * Where the brackets of a text (JSON, or YAML with JSON in it) first nest
 * deeper than `max`, double-quoted strings skipped; -1 when they never do.
 */
export function tooDeepAt(text: string, max = MAX_JSON_DEPTH): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return i;
    } else if ((c === 125 || c === 93) && depth > 0) depth--;
  }
  return -1;
}

/**
 * A text read as JSON, when it is JSON nesting within `MAX_JSON_DEPTH`;
 * undefined otherwise. Every reader of recorded text goes through it: a
 * hand-edited cassette can hold JSON deep enough to overflow any tree walk.
 */
export function readJson(text: string): { json: unknown } | undefined {
  if (!jsonDepthWithin(text)) return undefined;
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * Parsed JSON when re-serialising gives back exactly `text` and it nests
 * within `MAX_JSON_DEPTH`; undefined otherwise.
 */
export function exactJson(text: string): { json: unknown } | undefined {
  const c = text.charCodeAt(0);
  if ((c !== 123 /* { */ && c !== 91) /* [ */ || !jsonDepthWithin(text)) return undefined;
  try {
    const json: unknown = JSON.parse(text);
    return JSON.stringify(json) === text ? { json } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Chooses the most readable exact form for a body: parsed JSON when
 * re-serialising gives the same bytes, else text when it is clean UTF-8, else base64.
 */
export function encodeBody(bytes: Uint8Array): Body | undefined {
  if (bytes.byteLength === 0) return undefined;
  if (bytes.byteLength > MAX_STORED_BODY) return omittedBody(bytes.byteLength, createHash('sha256').update(bytes).digest('hex'));
  const text = decodeUtf8(bytes);
  if (text === undefined || BINARY_CONTROL.test(text) || !text.isWellFormed()) {
    return { base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') };
  }
  return exactJson(text) ?? { text };
}

/** The exact bytes a stored body stands for (none for an omitted one: see `isOmitted`). */
export function decodeBody(body: Body | undefined): Buffer {
  if (body === undefined || 'omitted' in body) return Buffer.alloc(0);
  if ('json' in body) return Buffer.from(JSON.stringify(body.json), 'utf8');
  if ('text' in body) return Buffer.from(body.text, 'utf8');
  return Buffer.from(body.base64, 'base64');
}
