import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Cassette, loadCassette, type WsFrame } from '../../src/cassette/index.js';
import { applyVariation, exploreCassette, variationArbitrary, variationSpace } from '../../src/fuzz/index.js';
import { CASSETTES } from './committed.js';

const framesOf = (c: Cassette) => c.interactions[0]?.response?.websocket?.frames ?? [];
const methodOf = (f: WsFrame) => (f.json as { method?: string } | undefined)?.method;
const load = (folder: string, probe: string) => loadCassette(join(CASSETTES, folder, `${probe}.yaml`));

describe('variations of WebSocket sessions', () => {
  it.each([['codex-app-server'], ['codex-app-server-real']])(
    '%s: every variation keeps the client frames as recorded, each server frame after the client frame it followed, and the packs',
    async (folder) => {
      const cassette = await load(folder, 'tool_approved');
      const space = variationSpace(cassette, 'tool_approved');
      const client = framesOf(cassette).filter((f) => f.from === 'client');
      let changed = 0;
      fc.assert(
        fc.property(variationArbitrary(space), (v) => {
          const varied = applyVariation(space, v);
          const frames = framesOf(varied.cassette);
          if (varied.applied.length > 0) changed++;
          expect(frames.filter((f) => f.from === 'client')).toEqual(client);
          // A server frame recorded with after = k comes after the client frame of seq k and before the next one.
          const at = (seq: number) => frames.findIndex((c) => c.from === 'client' && c.seq === seq);
          const next = (k: number) => frames.findIndex((c) => c.from === 'client' && (c.seq as number) > k);
          for (const [i, f] of frames.entries()) {
            if (f.from !== 'server') continue;
            expect(i).toBeGreaterThan(at(f.after));
            if (next(f.after) !== -1) expect(i).toBeLessThan(next(f.after));
          }
        }),
        { numRuns: 200, seed: 7 },
      );
      expect(changed).toBeGreaterThan(100);
    },
  );

  it('reaches the session: a property on the deltas fails and the report names the session', async () => {
    const cassette = await load('codex-app-server', 'text_turn');
    const deltas = (c: Cassette) => framesOf(c).filter((f) => methodOf(f) === 'item/agentMessage/delta').length;
    const recorded = deltas(cassette);
    const report = await exploreCassette(cassette, { runs: 200, seed: 3 }, (c) => deltas(c.cassette) === recorded);
    expect(report.failure?.applied.join('\n')).toMatch(/item\/agentMessage\/delta .*\(session of seq 1\)/);
    expect(report.failure?.streams[0]?.events).toContain('client:turn/start');
  });
});
