import { fetch as undiciFetch } from 'undici';
import type { FetchLike } from '../families/kit/index.js';
import { cassetteDispatcher, type ReplayEngine } from '../replayer/index.js';

/** A fetch that answers from cassettes through tapedeck's undici dispatcher: no socket at all. */
export function cassetteFetch(...args: Parameters<typeof cassetteDispatcher>): FetchLike & { engine: ReplayEngine } {
  const dispatcher = cassetteDispatcher(...args);
  const fetch: FetchLike = (url, init) => undiciFetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
  return Object.assign(fetch, { engine: dispatcher.engine });
}
