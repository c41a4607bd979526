import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/net/listen.js';
import { recordSuite } from '../../src/suite/index.js';
import { SUITES, suiteForTarget } from '../../src/suites/index.js';
import { tempDir } from '../families/omnigent/helpers.js';

describe('the one record loop', () => {
  // The bench's vocabulary: a server that is not there says nothing about what it supports.
  it.each(SUITES.filter((s) => s.target !== 'omnigent').map((s) => [s.target]))(
    '%s: a server that is down gives SKIPPED with the reason, never UNKNOWN or a capability verdict',
    async (target) => {
      const suite = suiteForTarget(target);
      const port = await freePort();
      const scheme = target === 'codex' ? 'ws' : 'http';
      const manifest = await recordSuite(suite, {
        server: `${scheme}://127.0.0.1:${port}`,
        apiKey: 'a-key-of-sixteen-chars',
        probes: [suite.probes[0]?.name as string],
        outDir: await tempDir('down'),
      });
      expect(manifest.probes.map((p) => [p.probe, p.observed, p.verdict])).toEqual([[suite.probes[0]?.name, 'SKIPPED', 'SKIPPED']]);
      expect(manifest.probes[0]?.reason).toMatch(/answered 502|cannot open a WebSocket/);
    },
  );

  it('omnigent refuses a server that is down before recording anything, in one line naming the fix', async () => {
    const port = await freePort();
    const out = await tempDir('down');
    const err = await recordSuite(suiteForTarget('omnigent'), {
      server: `http://127.0.0.1:${port}`,
      variant: 'kiro-native',
      outDir: out,
    }).catch((e: unknown) => e as Error);
    expect((err as Error).message).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); is the server running\?/);
  });
});
