import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { families, familyById } from '../../src/families/index.js';
import { freePort } from '../../src/net/listen.js';
import { recordFamily } from '../../src/probing/index.js';
import { tempDir } from '../families/omnigent/helpers.js';

describe('the one record loop', () => {
  // The bench's vocabulary: a server that answers its health route and then nothing says nothing about what it supports.
  it.each(
    families()
      .filter((s) => s.id !== 'omnigent')
      .map((s) => [s.id]),
  )(
    '%s: a server that drops every call after its health check gives SKIPPED with the reason, never UNKNOWN or a capability verdict',
    async (target) => {
      const suite = familyById(target);
      const server = createServer((req, res) => {
        if (req.url === '/health' || req.url === '/global/health') res.end('{"status":"ok"}');
        else req.socket.destroy();
      });
      server.on('upgrade', (_req, socket) => socket.destroy());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      try {
        const scheme = target === 'codex' ? 'ws' : 'http';
        const manifest = await recordFamily(suite, {
          server: `${scheme}://127.0.0.1:${port}`,
          apiKey: 'a-key-of-sixteen-chars',
          probes: [suite.probes[0]?.name as string],
          outDir: await tempDir('down'),
        });
        expect(manifest.probes.map((p) => [p.probe, p.observed, p.verdict])).toEqual([[suite.probes[0]?.name, 'SKIPPED', 'SKIPPED']]);
        expect(manifest.probes[0]?.reason).toMatch(/answered 502|cannot open a WebSocket/);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  );

  it.each(families().map((s) => [s.id]))(
    '%s refuses a server that is down before recording anything, in one line naming the fix',
    async (target) => {
      const suite = familyById(target);
      const port = await freePort();
      const scheme = target === 'codex' ? 'ws' : 'http';
      const err = await recordFamily(suite, {
        server: `${scheme}://127.0.0.1:${port}`,
        apiKey: 'a-key-of-sixteen-chars',
        ...(suite.variants ? { variant: 'kiro-native' } : {}),
        outDir: await tempDir('down'),
      }).catch((e: unknown) => e as Error);
      expect((err as Error).message).toMatch(/^cannot reach \w+:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); is the server running\?/);
    },
  );
});
