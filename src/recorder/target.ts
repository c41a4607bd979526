import { UsageError } from '../errors.js';

export interface TargetUrl {
  /** The target as written to cassettes: no credentials, no trailing slash. */
  readonly display: string;
  /** Where a request path goes upstream, as a dispatcher takes it: the origin, and the path behind the target's prefix. */
  upstream(path: string): { origin: string; path: string };
}

/** Validates a target base URL; credentials in it are refused rather than recorded. */
export function publicTarget(raw: string): TargetUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--target ${JSON.stringify(raw)} is not a URL; give one like http://127.0.0.1:6767`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--target must be an http:// or https:// URL, got ${url.protocol}//`);
  }
  if (url.username || url.password) {
    throw new UsageError('--target must not carry credentials; send them as headers from the client instead');
  }
  const prefix = url.pathname.replace(/\/+$/, '');
  const origin = url.origin;
  return {
    display: `${origin}${prefix}`,
    // A path is forwarded as the client wrote it; only an odd one (absolute-form, `*`) is read as a URL, which may refuse it.
    upstream: (path) => {
      if (path.startsWith('/')) return { origin, path: `${prefix}${path}` };
      const url = new URL(`${origin}${prefix}${path}`);
      return { origin: url.origin, path: `${url.pathname}${url.search}` };
    },
  };
}
