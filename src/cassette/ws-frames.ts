import { exactJson, readJson } from './body.js';
import type { WsFrame } from './schema.js';

/** What a data frame carries, as a cassette stores it. */
export type WsPayload = { json: unknown } | { text: string } | { base64: string };

/**
 * A frame off the wire: binary as base64, compact JSON (objects and arrays
 * that re-serialise to the same bytes) as `json`, other text as `text`, so
 * replay sends back exactly what was received.
 */
export function payloadFromWire(data: Buffer, binary: boolean): WsPayload {
  if (binary) return { base64: data.toString('base64') };
  const text = data.toString('utf8');
  return exactJson(text) ?? { text };
}

/** A recorded data frame back on the wire, byte for byte: `json` is only ever kept for compact JSON. */
export function payloadToWire(frame: WsPayload): { data: Buffer | string; binary: boolean } {
  if ('base64' in frame && frame.base64 !== undefined) return { data: Buffer.from(frame.base64, 'base64'), binary: true };
  if ('json' in frame && frame.json !== undefined) return { data: JSON.stringify(frame.json), binary: false };
  return { data: (frame as { text: string }).text, binary: false };
}

/** The payload part of a recorded frame, or undefined for a close frame. */
export function payloadOf(frame: WsFrame): WsPayload | undefined {
  if (frame.json !== undefined) return { json: frame.json };
  if (frame.text !== undefined) return { text: frame.text };
  if (frame.base64 !== undefined) return { base64: frame.base64 };
  return undefined;
}

/** Close codes a peer may send: "no status" (1005), "abnormal" (1006) and "TLS" (1015) are only ever reported. */
export const sendableCloseCode = (code: number) => code >= 1000 && code < 5000 && code !== 1005 && code !== 1006 && code !== 1015;

/** The bytes of a WebSocket message, whichever form the library handed it over in. */
export const wireBytes = (data: Buffer | ArrayBuffer | Buffer[]): Buffer =>
  Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);

/**
 * What a frame says as JSON, however it was stored: `json` when it was
 * compact, and a `text` frame that parses as JSON too (a client that writes
 * `{"a": 1}` with spaces, as Python's json.dumps does, is kept as text so
 * replay sends its bytes back). Undefined for other text, binary and closes.
 */
export function frameJson(frame: WsFrame): unknown {
  if (frame.json !== undefined) return frame.json;
  if (frame.text === undefined) return undefined;
  const c = frame.text.trimStart().charCodeAt(0);
  return c === 123 /* { */ || c === 91 /* [ */ ? readJson(frame.text)?.json : undefined;
}
