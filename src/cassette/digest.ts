import { createHash } from 'node:crypto';
import { z } from 'zod';
import { cassetteSchema } from './schema.js';

let fingerprint: string | undefined;

/** The schema's own fingerprint: a digest is only trusted by the schema that validated it. */
function schemaFingerprint(): string {
  fingerprint ??= createHash('sha256')
    .update(JSON.stringify(z.toJSONSchema(cassetteSchema, { io: 'input', unrepresentable: 'any' })))
    .digest('hex');
  return fingerprint;
}

/** The digest written into a cassette's first line: the canonical body under this schema. */
export function bodyDigest(body: string): string {
  return digestHash().update(body).digest('hex');
}

/** A hash primed as `bodyDigest` primes it, for a body written in pieces. */
export function digestHash(): import('node:crypto').Hash {
  return createHash('sha256').update(schemaFingerprint()).update('\n');
}

const HEADER = /^# tapedeck cassette, format v1 \(sha256:([0-9a-f]{64})\)[^\n]*\n/;

export function headerLine(digest: string): string {
  return `# tapedeck cassette, format v1 (sha256:${digest}). Written by the tool; check a hand edit with \`bench inspect FILE\`.\n`;
}

/**
 * True when the text is exactly what tapedeck wrote: its
 * first line carries the digest of the rest. Any edit breaks the match.
 */
export function isUntouchedSinceWritten(text: string): boolean {
  const m = HEADER.exec(text);
  return m !== null && bodyDigest(text.slice(m[0].length)) === m[1];
}
