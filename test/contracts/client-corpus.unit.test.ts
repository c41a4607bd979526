import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCassette } from '../../src/cassette/index.js';
import { verifyCassette } from '../../src/contracts/index.js';
import '../../src/families/index.js';

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
      // The MCP session fits no built-in pack yet (the MCP family will bring one): it is checked for what it is.
      if (name.startsWith('mcp-')) expect(checked.rules).toEqual([]);
      else expect(checked.rules.length).toBeGreaterThan(0);
      expect(checked.rules.flatMap((r) => r.violations)).toEqual([]);
    });
});
