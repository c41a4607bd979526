import { createHash } from 'node:crypto';

/**
 * The key of every format-1 digest: the fingerprint (sha-256 of its JSON
 * Schema) of format 1's schema as decision 0009 left it. Additive changes to
 * format 1 (decision 0014) keep it: a file the tool wrote before one is still
 * untouched after it, and a save after an upgrade rewrites no first line. A
 * load validates every file whatever its digest (decision 0001).
 */
const FORMAT_1_KEY = '00695b46d630f682eca2041e3e1ba746e9786da92c9bc9888a7caabe2f55d05d';

/** The digest written into a cassette's first line: the canonical body, keyed by format 1. */
export function bodyDigest(body: string): string {
  return digestHash().update(body).digest('hex');
}

/** A hash primed as `bodyDigest` primes it, for a body written in pieces. */
export function digestHash(): import('node:crypto').Hash {
  return createHash('sha256').update(FORMAT_1_KEY).update('\n');
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
