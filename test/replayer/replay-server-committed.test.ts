import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCassette } from '../../src/cassette/index.js';
import { replayCheck } from '../../src/probing/index.js';
import { startReplayServer } from '../../src/replayer/index.js';

const CASSETTES = join(import.meta.dirname, '..', '..', 'cassettes');

describe('offline replay over a real socket', () => {
  it("reproduces every manifest verdict through bench replay's HTTP server", async () => {
    const rows = await replayCheck(CASSETTES, {
      fetchFor: async (file) => {
        const replay = await startReplayServer([{ name: file, cassette: await loadCassette(file) }]);
        return { fetch: (url, init) => fetch(url, init), baseUrl: replay.url, done: () => replay.close() };
      },
    });
    expect(rows.filter((r) => !r.ok)).toEqual([]);
    expect(rows.length).toBe(164);
  });
});

describe('a recorded harness folder served as one set', () => {
  it.each(['claude-native', 'cursor-native'])('replays every probe of %s in order against one server', async (harnessId) => {
    const { loadCassetteSet } = await import('../../src/replayer/index.js');
    const { findHarness, observeProbe, PROBES, REPLAY_TIMINGS, SessionDriver } = await import('../../src/families/omnigent/index.js');
    const { loadManifest, reconcile } = await import('../../src/manifest/index.js');
    const folder = join(CASSETTES, harnessId);
    const replay = await startReplayServer(await loadCassetteSet(folder));
    const harness = findHarness(harnessId);
    if (!harness) throw new Error('no harness');
    const manifest = await loadManifest(join(folder, 'manifest.yaml'));
    try {
      for (const result of manifest.probes.filter((p) => p.cassette)) {
        const probe = PROBES.find((p) => p.name === result.probe);
        if (!probe) throw new Error(result.probe);
        const { observed } = await observeProbe(probe, new SessionDriver(replay.url, harness, REPLAY_TIMINGS));
        expect(`${result.probe} ${reconcile(observed, result.declared)}`).toBe(`${result.probe} ${result.verdict}`);
      }
      expect(replay.engine.misses).toEqual([]);
      expect(replay.engine.unused()).toEqual([]);
    } finally {
      await replay.close();
    }
  });
});
