import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCassette } from '../../src/cassette/index.js';
import { registerPacks, verifyCassette } from '../../src/contracts/index.js';
import '../../src/families/index.js';
import { mcpStreamableHttp } from '../../src/families/mcp/packs.js';

// The MCP pack is not in a registered family yet (the MCP family brings it): registered here, as the family will.
registerPacks([mcpStreamableHttp]);

/** Other clients' traffic against real servers, recorded by `bench proxy` in test:peers (see test/helpers/corpus.ts). */
const CORPUS = new URL('../../cassettes/clients/', import.meta.url).pathname;
const EXPECTED = ['mcp-sdk-everything.yaml', 'omnigent-codex-transport.yaml', 'omnigent-opencode-transport.yaml', 'openai-sdk-hermes.yaml'];

describe("the corpus of other clients' recordings", () => {
  it("holds omnigent's codex and opencode transports, the MCP SDK client and the openai SDK", async () => {
    expect((await readdir(CORPUS)).filter((f) => f.endsWith('.yaml')).sort()).toEqual(EXPECTED);
  });

  for (const name of EXPECTED)
    it(`${name} verifies with no violation, against the packs its traffic fits`, async () => {
      const checked = verifyCassette(await loadCassette(join(CORPUS, name)), name);
      expect(checked.rules.length).toBeGreaterThan(0);
      if (name.startsWith('mcp-')) expect(checked.packs).toEqual(['mcp/streamable-http']);
      expect(checked.rules.flatMap((r) => r.violations)).toEqual([]);
    });
});
