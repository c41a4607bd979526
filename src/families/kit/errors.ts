import { TapedeckError } from '../../errors.js';

/**
 * Trouble with the server or the machine, not a capability: the bench calls
 * such a probe SKIPPED with the reason, never UNSUPPORTED or UNKNOWN.
 */
export class InfrastructureError extends TapedeckError {
  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(options?.code ?? 'infrastructure', message, { ...(options?.cause === undefined ? {} : { cause: options.cause }), exitCode: 1 });
  }
}

/** The server answered a request a probe needed with an unexpected status (a 502 from the proxy when it is down). */
export class ServerResponseError extends InfrastructureError {
  constructor(
    readonly status: number,
    readonly route: string,
    body: string,
  ) {
    super(`${route} answered ${status}${body ? `: ${body.slice(0, 200)}` : ''}`, { code: 'server_response' });
  }
}

/** Socket-level failures: the server is down, went away or is not what the URL says. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
]);

/** Whether an error thrown by a probe is infrastructure trouble (an InfrastructureError, or a socket failure at any depth). */
export function isInfrastructure(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof InfrastructureError) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  }
  return false;
}
