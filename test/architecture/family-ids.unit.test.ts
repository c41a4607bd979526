import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { familyIds, familyIdsOutsideFamilies, familyMentions, wordsOf } from './family-ids.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

describe('a family lives in its folder: no family id in code or strings outside src/families/', () => {
  it('the built-in families are the folders the scan looks for', async () => {
    expect((await familyIds(SRC)).sort()).toEqual(['a2a', 'ag-ui', 'codex', 'hermes', 'mcp', 'omnigent', 'opencode']);
  });

  it('no code token or string under src/ outside src/families/ names a family', async () => {
    expect(await familyIdsOutsideFamilies(SRC, await familyIds(SRC))).toEqual([]);
  });

  it("package.json's exports name no family: a family's own names are tapedeck-bench/families/<id>", async () => {
    const { exports } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string> };
    const ids = await familyIds(SRC);
    const named = Object.entries(exports).filter(([key, path]) => [...wordsOf(key), ...wordsOf(path)].some((w) => ids.includes(w)));
    expect(named).toEqual([]);
    expect(exports['./families/*']).toBe('./dist/families/*/index.js');
  });
});

describe('the scan fails where a family is named, and only there', () => {
  const ids = ['omnigent', 'codex'];
  it('finds an id in a string, an identifier, a template part and a regex, each at its line', () => {
    const text = [
      "const a = 'omnigent';",
      'const codexConfig = 1;',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the scanned text holds a template literal
      'const b = `x ${a} codex-app-server`;',
      'const r = /\\/omnigent\\//;',
    ].join('\n');
    expect(familyMentions(text, ids).map((m) => m.line)).toEqual([1, 2, 3, 4]);
  });

  it('skips comments, and words that only contain an id', () => {
    const text = "// omnigent's rule\n/** codex */\nconst codexes = 'omnigents';\n";
    expect(familyMentions(text, ids)).toEqual([]);
  });
});
