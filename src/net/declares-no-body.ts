import type { IncomingMessage } from 'node:http';

/**
 * A request with neither a length nor a transfer coding has no body (RFC 9112
 * 6.3), nor has one of length 0: node ends its stream on its own, so there is
 * nothing to wait for (most GETs).
 */
export function declaresNoBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}
