import { UsageError } from '../errors.js';
import { splitAbsoluteForm } from '../net/request-target.js';
import { authorityOrigin, type TunnelDecision } from '../net/tunnels.js';

/** Where one request goes: upstream, and how the recording names it. */
export interface Route {
  readonly ok: true;
  /** The origin the request is sent to. */
  readonly origin: string;
  /** The request target sent upstream. */
  readonly upstreamPath: string;
  /** The path (with its query) as recorded: what a replay is asked for. */
  readonly path: string;
  /** The origin an absolute-form request named (a client behind `HTTP_PROXY`); none for origin-form. */
  readonly namedOrigin?: string;
}

/** A request target the proxy will not forward: answered with this status, never sent anywhere. */
export interface Refusal {
  readonly ok: false;
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

export interface TargetUrl {
  /** The target as written to cassettes: no credentials, no trailing slash. */
  readonly display: string;
  /**
   * Where a request goes, from the request target as the client wrote it
   * (origin-form or absolute-form); `tunnelled` is the origin of the CONNECT
   * tunnel it came through, if any.
   */
  route(requestTarget: string, tunnelled?: string): Route | Refusal;
  /** The origin a CONNECT to `authority` (`host:port`) opens a tunnel to, when that origin is recorded here. */
  tunnel(authority: string): TunnelDecision;
}

/** Validates a target base URL; credentials in it are refused rather than recorded. */
export function publicTarget(raw: string, allowOrigins: readonly string[] = []): TargetUrl {
  const url = httpUrl(raw, '--target');
  if (url.username || url.password) {
    throw new UsageError('--target must not carry credentials; send them as headers from the client instead');
  }
  const prefix = url.pathname.replace(/\/+$/, '');
  const origin = url.origin;
  const display = `${origin}${prefix}`;
  const allowed = new Set([origin, ...allowOrigins.map(allowedOrigin)]);
  return {
    display,
    route: (requestTarget, tunnelled) => {
      // Inside a tunnel, the path is the tunnel origin's own, as the client wrote it.
      if (tunnelled && requestTarget.startsWith('/'))
        return { ok: true, origin: tunnelled, upstreamPath: requestTarget, path: requestTarget, namedOrigin: tunnelled };
      // A path is forwarded as the client wrote it, behind the target's prefix.
      if (requestTarget.startsWith('/')) return { ok: true, origin, upstreamPath: `${prefix}${requestTarget}`, path: requestTarget };
      return absoluteForm(requestTarget, allowed, display);
    },
    tunnel: (authority) => {
      const named = authorityOrigin(authority);
      if (named && allowed.has(named)) return { ok: true, origin: named };
      return refusal(
        403,
        'tunnel_refused',
        `tapedeck proxy records plain HTTP to ${[...allowed].join(', ')}; a CONNECT to ${authority} is refused (an HTTPS tunnel cannot be recorded: point the client at the proxy's own URL; for plain HTTP to that origin, add --allow-origin http://${authority})`,
      );
    },
  };
}

/**
 * An absolute-form request target (`GET http://host/x`, what a client behind
 * `HTTP_PROXY` sends): forwarded to its own origin when that origin is
 * allowed, the path kept byte for byte as written (a URL would resolve `..`).
 */
function absoluteForm(requestTarget: string, allowed: ReadonlySet<string>, display: string): Route | Refusal {
  const parts = splitAbsoluteForm(requestTarget);
  let url: URL | undefined;
  try {
    url = parts ? new URL(parts.authority) : undefined;
  } catch {
    url = undefined;
  }
  if (!parts || !url) {
    const shown = requestTarget.length > 80 ? `${requestTarget.slice(0, 80)}…` : requestTarget;
    return requestTarget === '*'
      ? refusal(501, 'unsupported_request_target', 'tapedeck proxy does not forward asterisk-form requests (OPTIONS *)')
      : refusal(400, 'bad_request_target', `tapedeck proxy cannot forward the request target ${JSON.stringify(shown)}`);
  }
  if (!allowed.has(url.origin)) {
    return refusal(
      403,
      'origin_refused',
      `tapedeck proxy records ${display}; ${url.origin} is refused (start bench proxy with --allow-origin ${url.origin} to record it)`,
    );
  }
  return { ok: true, origin: url.origin, upstreamPath: parts.path, path: parts.path, namedOrigin: url.origin };
}

function refusal(status: number, code: string, message: string): Refusal {
  return { ok: false, status, code, message };
}

/** An `--allow-origin` value: an http(s) origin alone, no path, no credentials. */
function allowedOrigin(raw: string): string {
  const url = httpUrl(raw, '--allow-origin');
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search) {
    throw new UsageError(`--allow-origin takes an origin alone, like http://localhost:8080; got ${JSON.stringify(raw)}`);
  }
  return url.origin;
}

function httpUrl(raw: string, flag: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${flag} ${JSON.stringify(raw)} is not a URL; give one like http://127.0.0.1:6767`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${flag} must be an http:// or https:// URL, got ${url.protocol}//`);
  }
  return url;
}
