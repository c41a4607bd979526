import { setupServer } from 'msw/node';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Cassette } from '../cassette/index.js';
import { type MatcherEvents, toSatisfyContract } from '../contracts/matcher.js';
import type { Pack } from '../contracts/pack.js';
import type { ReplayEngine, ReplayOptions } from './engine.js';
import { loadCassetteSet } from './load-set.js';
import { cassetteHandlers } from './msw-door.js';
import { canInterceptWebSockets, noGlobalWebSocket } from './msw-ws-door.js';

export interface UseCassetteOptions extends ReplayOptions {
  /** Fail the suite when recorded interactions were never asked for (default: true in strict mode). */
  failOnUnused?: boolean;
}

/**
 * Serves a cassette (file, folder, or object) through MSW for the current
 * vitest file: set up before all tests, checked for misses and unused
 * interactions after, torn down. Returns a handle to the engine.
 */
export function useCassette(source: string | Cassette, options: UseCassetteOptions = {}): { readonly engine: ReplayEngine } {
  const handle: { engine?: ReplayEngine } = {};
  let server: ReturnType<typeof setupServer> | undefined;
  beforeAll(async () => {
    const set = typeof source === 'string' ? await loadCassetteSet(source) : [{ name: 'cassette', cassette: source }];
    const { handlers, engine, webSockets } = cassetteHandlers(set, options);
    if (webSockets && !canInterceptWebSockets()) throw noGlobalWebSocket();
    handle.engine = engine;
    server = setupServer(...handlers);
    server.listen({ onUnhandledRequest: options.mode === 'lenient' ? 'warn' : 'error' });
  });
  afterAll(() => {
    server?.close();
    const engine = handle.engine;
    if (!engine) return;
    const miss = engine.misses[0];
    if (miss && engine.mode === 'strict') throw miss;
    const unused = engine.unused();
    if (unused.length > 0 && (options.failOnUnused ?? engine.mode === 'strict')) {
      throw new Error(
        `tapedeck: ${unused.length} recorded interactions were never requested: ${unused.map((u) => `${u.cassette} #${u.seq}`).join(', ')}`,
      );
    }
  });
  return {
    get engine() {
      if (!handle.engine) throw new Error('useCassette: the engine exists once beforeAll has run');
      return handle.engine;
    },
  };
}

expect.extend({
  toSatisfyContract(received: MatcherEvents, pack: Pack | string) {
    return toSatisfyContract(received, pack);
  },
});

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: the declaration must repeat vitest's own type parameter exactly.
  interface Matchers<T = any> {
    /** The events satisfy every rule and payload schema of the pack (a built-in name or a Pack). */
    toSatisfyContract(pack: Pack | string): T;
  }
}
