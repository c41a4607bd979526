import { join } from 'node:path';
import { setupServer } from 'msw/node';
import { WebSocket as UndiciWebSocket } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../src/cassette/index.js';
import { CODEX_PROBES, observeCodexProbe } from '../../src/families/codex/index.js';
import { cassetteHandlers } from '../../src/replayer/index.js';

const CASSETTES = join(import.meta.dirname, '..', '..', 'cassettes');
const probe = (name: string) => CODEX_PROBES.find((p) => p.name === name) as (typeof CODEX_PROBES)[number];
const globals = globalThis as { WebSocket?: unknown };
const original = globals.WebSocket;
let server: ReturnType<typeof setupServer> | undefined;

beforeAll(() => {
  // Node 20 has no global WebSocket for MSW to patch (22 has); undici's is the same implementation.
  globals.WebSocket ??= UndiciWebSocket;
});
afterEach(() => {
  server?.close();
  server = undefined;
});
afterAll(() => {
  globals.WebSocket = original;
});

/** Serves one cassette through MSW's handlers, in-process: no socket is opened. */
async function serve(folder: string, name: string) {
  const cassette = await loadCassette(join(CASSETTES, folder, `${name}.yaml`));
  const { handlers, engine, webSockets } = cassetteHandlers([{ name, cassette }]);
  expect(webSockets).toBe(true);
  server = setupServer(...handlers);
  server.listen({ onUnhandledRequest: 'error' });
  return engine;
}

describe('WebSocket sessions through the MSW door (ws.link)', () => {
  it.each([['codex-app-server'], ['codex-app-server-real']])(
    '%s: the approval probe replays in-process with its verdict, the request released after turn/start and the answer matched',
    async (folder) => {
      const engine = await serve(folder, 'tool_approved');
      const out = await observeCodexProbe(
        probe('tool_approved'),
        'ws://codex.replay.invalid/',
        10_000,
        globalThis.WebSocket as typeof UndiciWebSocket,
      );
      expect(out.observed).toBe('SUPPORTED');
      expect(engine.misses).toEqual([]);
      expect(engine.unused()).toEqual([]);
    },
  );

  it('a different answer to the approval is reported as unmatched and closes the socket', async () => {
    const engine = await serve('codex-app-server', 'tool_approved');
    // The rejecting probe answers `decline` where `accept` was recorded.
    const out = await observeCodexProbe(
      probe('tool_rejected'),
      'ws://codex.replay.invalid/',
      2_000,
      globalThis.WebSocket as typeof UndiciWebSocket,
    );
    expect(out.observed).not.toBe('SUPPORTED');
    expect(engine.misses.map((m) => m.message.split('\n')[0])).toEqual([expect.stringContaining('decline')]);
  });
});
