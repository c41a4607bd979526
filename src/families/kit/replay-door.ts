import type { NamedCassette } from '../../replayer/index.js';
import type { FetchLike } from './json-client.js';

/** The base URL probes use against a replay; any origin works, nothing is dialled. */
export const REPLAY_ORIGIN = 'http://replay.tapedeck.invalid';

/**
 * A way to reach a replay of one cassette: a fetch, its base URL, and how to
 * stop it; `cassettes`, when the probe needs a socket of its own (WebSocket
 * sessions), are what that socket replays instead of the file.
 */
export type ReplayDoor = {
  fetch: FetchLike;
  baseUrl?: string | undefined;
  done?: () => Promise<void>;
  cassettes?: readonly NamedCassette[];
};

/** Runs `run` against the door, then stops the door whatever happened. */
export async function throughDoor<T>(door: ReplayDoor, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } finally {
    await door.done?.();
  }
}
