import { join } from 'node:path';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../src/cassette/index.js';
import type { ReplayDoor } from '../../src/families/kit/index.js';
import { type ReplayCheckRow, replayCheck } from '../../src/probing/index.js';
import { cassetteHandlers, type ReplayEngine } from '../../src/replayer/index.js';
import { runsOf } from '../helpers/soak.js';

/** Replays of the whole committed set through MSW, each one identical to the first. */
const RUNS = runsOf(5, 50);

const CASSETTES = join(import.meta.dirname, '..', '..', 'cassettes');
const server = setupServer();
const engines: ReplayEngine[] = [];

// WebSocket sessions (codex app-server) replay through a socket of their own: only their upgrades pass MSW by.
beforeAll(() =>
  server.listen({
    onUnhandledRequest: (request, print) => {
      if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') print.error();
    },
  }),
);
afterAll(() => server.close());

/** Serves each probe's cassette through MSW; the driver uses the global fetch, as a user's test would. */
async function throughMsw(file: string): Promise<ReplayDoor> {
  const cassette = await loadCassette(file);
  // The MSW door serves HTTP and SSE; a WebSocket session is replayed by its own server, so no handler stands in its way.
  if (cassette.interactions.some((i) => i.response?.websocket)) {
    server.resetHandlers();
    return { fetch: (url, init) => fetch(url, init) };
  }
  const { handlers, engine } = cassetteHandlers([{ name: file, cassette }]);
  engines.push(engine);
  server.resetHandlers(...handlers);
  return { fetch: (url, init) => fetch(url, init) };
}

const summary = (rows: ReplayCheckRow[]) => rows.map((r) => `${r.harness} ${r.probe} ${r.replayed} ${r.reason}`);

describe('offline replay of the committed bench cassettes', () => {
  it(
    `reproduces every manifest verdict through MSW, ${RUNS} times over with identical results`,
    async () => {
      const first = await replayCheck(CASSETTES, { fetchFor: throughMsw });
      expect(first.length).toBe(164);
      expect(first.filter((r) => !r.ok).map((r) => `${r.harness} ${r.probe} ${r.reason}`)).toEqual([]);
      for (let run = 1; run < RUNS; run++) {
        expect(summary(await replayCheck(CASSETTES, { fetchFor: throughMsw }))).toEqual(summary(first));
      }
      expect(engines.flatMap((e) => e.misses.map((m) => m.message))).toEqual([]);
      expect(engines.flatMap((e) => e.unused())).toEqual([]);
      // About 4 s a pass on an idle 2-core machine; a loaded one takes twice that, and half again is allowed.
    },
    Math.max(120_000, RUNS * 12_000),
  );

  it('reproduces every manifest verdict through the undici dispatcher door', async () => {
    server.resetHandlers();
    const rows = await replayCheck(CASSETTES);
    expect(rows.filter((r) => !r.ok)).toEqual([]);
    expect(rows.length).toBe(164);
  });
});
