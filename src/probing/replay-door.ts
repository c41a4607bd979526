import { fetch as undiciFetch } from 'undici';
import type { FetchLike } from '../families/kit/index.js';
import { cassetteDispatcher } from '../replayer/index.js';

/** A fetch that answers from cassettes through tapedeck's undici dispatcher: no socket at all. */
export function cassetteFetch(...args: Parameters<typeof cassetteDispatcher>): FetchLike {
  const dispatcher = cassetteDispatcher(...args);
  return (url, init) => undiciFetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
}
