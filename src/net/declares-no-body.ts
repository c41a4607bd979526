import type { IncomingMessage } from 'node:http';

/**
 * A request with neither a length nor a transfer coding has no body (RFC 9112
 * 6.3), nor has one of length 0: node ends its stream on its own, so there is
 * nothing to wait for (most GETs). Read from the raw header lines: node builds
 * `req.headers` on first use, and a request matched without its headers need not pay for it.
 */
export function declaresNoBody(req: IncomingMessage): boolean {
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    // Only two names matter, both long: a length check first leaves most lines after one comparison.
    if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') return false;
    if (name.length === 14 && name.toLowerCase() === 'content-length' && raw[i + 1] !== '0') return false;
  }
  return true;
}
