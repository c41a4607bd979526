import type { IncomingHttpHeaders } from 'node:http';
import type { Headers } from '../cassette/index.js';

// Hop-by-hop headers (RFC 9110 7.6.1) describe one connection, not the message. `Expect: 100-continue`
// is answered by the proxy's own server before the body is read, and undici refuses to send it. `Trailer` is
// end-to-end, but a recording keeps the trailers themselves and replay announces them (decision 0014).
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'expect',
]);

/**
 * End-to-end headers from a node or undici header object, lists kept as
 * lists, content-length last: node re-encodes a content-disposition it meets
 * after a content-length (nodejs/node#46528), refusing a raw UTF-8 file name
 * that it passes unchanged when it comes first.
 */
export function endToEndHeaders(raw: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Headers {
  const out: Headers = {};
  let length: string | string[] | undefined;
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue;
    const kept = Array.isArray(value) ? (value.length === 1 ? (value[0] as string) : [...value]) : value;
    if (lower === 'content-length') length = kept;
    else out[lower] = kept;
  }
  if (length !== undefined) out['content-length'] = length;
  return out;
}

/** The first value of a header, whatever its multiplicity. */
export function headerValue(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}
