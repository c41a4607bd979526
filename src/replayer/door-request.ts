import type { ReplayRequest } from './match-request.js';

type HeaderRecord = ReplayRequest['headers'];

/**
 * A live request whose headers are copied from the door's own form only when read: a request sent exactly as
 * recorded is matched without them (`RouteIndex.exact`), and copying a Fetch `Headers` costs more than the match.
 * A class, so the accessor lives on its prototype and a request costs one object.
 */
class DoorRequest implements ReplayRequest {
  bodySha256?: string | undefined;
  private copied: HeaderRecord | undefined;

  constructor(
    readonly method: string,
    readonly path: string,
    readonly body: Uint8Array,
    private readonly readHeaders: () => HeaderRecord,
  ) {}

  get headers(): HeaderRecord {
    this.copied ??= this.readHeaders();
    return this.copied;
  }
}

/** A live request for the engine, its headers read from the door's form on first use. */
export function doorRequest(method: string, path: string, body: Uint8Array, readHeaders: () => HeaderRecord): ReplayRequest {
  return new DoorRequest(method, path, body, readHeaders);
}

/** The path and query of an absolute URL, as `new URL(url)` gives them, without building one for a plain URL. */
export function pathOfUrl(url: string): string {
  const scheme = url.indexOf('://');
  const slash = scheme === -1 ? -1 : url.indexOf('/', scheme + 3);
  const rest = slash === -1 ? '' : url.slice(slash);
  // A fetch Request's URL is already serialized: only an odd one (a fragment, a bare origin) is parsed again.
  const query = url.indexOf('?', scheme + 3);
  if (slash !== -1 && !rest.includes('#') && (query === -1 || query > slash)) {
    // An empty query is no query to `URL` (`search` is ''): `/a?` is `/a`.
    return rest.indexOf('?') === rest.length - 1 ? rest.slice(0, -1) : rest;
  }
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}
