import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { architectureViolations, isFamilyFolder, moduleOf, parseLayering } from './check-architecture.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');
const rules = async () => parseLayering(await readFile(join(ROOT, 'docs', 'architecture.md'), 'utf8'));

const copies: string[] = [];
afterAll(async () => {
  for (const dir of copies) await rm(dir, { recursive: true, force: true });
});

/** A copy of src/ with one file's text changed, to show the check notices. */
async function srcWith(file: string, change: (text: string) => string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-arch-'));
  copies.push(dir);
  await cp(SRC, join(dir, 'src'), { recursive: true });
  const path = join(dir, 'src', file);
  await writeFile(path, change(await readFile(path, 'utf8')));
  return join(dir, 'src');
}

describe('the architecture, as docs/architecture.md lays it out', () => {
  it('src/ imports only what the Layering table allows, with no cycle and no family client reaching its simulator', async () => {
    expect(await architectureViolations(SRC, await rules())).toEqual([]);
  });

  it('every module of src/ has a row, and the table names no module that does not exist', async () => {
    const { readdir } = await import('node:fs/promises');
    const inFamilies = (await readdir(join(SRC, 'families'))).map((f) => moduleOf(SRC, join(SRC, 'families', f)));
    const top = (await readdir(SRC)).filter((n) => n !== 'families').map((n) => n.replace(/\.ts$/, ''));
    const listed = [...(await rules()).keys()].filter((m) => m !== 'families/*');
    const shared = inFamilies.filter((m) => !isFamilyFolder(m));
    expect(listed.sort()).toEqual([...top, ...new Set(shared)].sort());
    expect(inFamilies.filter(isFamilyFolder).length).toBeGreaterThanOrEqual(4);
  });
});

describe('the check fails when the code breaks the layering', () => {
  it('an import the table forbids: the cassette module importing a stage', async () => {
    const src = await srcWith('cassette/index.ts', (t) => `import '../recorder/index.js';\n${t}`);
    expect((await architectureViolations(src, await rules())).sort()).toEqual([
      'cassette/index.ts imports recorder/index.ts: cassette may not import recorder',
      'import cycle between cassette, recorder',
    ]);
  });

  it('library code importing the CLI, a type-only import included', async () => {
    const src = await srcWith('replayer/engine.ts', (t) => `import type {} from '../cli/index.js';\n${t}`);
    const found = await architectureViolations(src, await rules());
    expect(found).toContain('replayer/engine.ts imports cli/index.ts: replayer may not import cli');
    expect(found.some((f) => f.startsWith('import cycle between') && f.includes('cli') && f.includes('replayer'))).toBe(true);
  });

  it('the recorder and the replayer importing each other', async () => {
    const src = await srcWith('recorder/timeline.ts', (t) => `import '../replayer/index.js';\n${t}`);
    expect(await architectureViolations(src, await rules())).toContain(
      'recorder/timeline.ts imports replayer/index.ts: recorder may not import replayer',
    );
  });

  it("a family's probes importing its simulator, and one family importing another", async () => {
    const probes = await srcWith('families/codex/probes.ts', (t) => `import './simulator/index.js';\n${t}`);
    expect(await architectureViolations(probes, await rules())).toEqual([
      "families/codex/probes.ts imports its family's simulator (families/codex/simulator/index.ts); only the family's family.ts may",
    ]);
    const other = await srcWith(
      'families/hermes/client.ts',
      (t) => `import { codexFamily } from '../codex/index.js';\nvoid codexFamily;\n${t}`,
    );
    expect(await architectureViolations(other, await rules())).toEqual([
      'families/hermes/client.ts imports families/codex/index.ts: families/hermes may not import families/codex',
    ]);
  });

  it('only the registry imports a family folder, and a family imports nothing above the kit', async () => {
    const orchestration = await srcWith('probing/replay-check.ts', (t) => `import '../families/codex/index.js';\n${t}`);
    expect(await architectureViolations(orchestration, await rules())).toContain(
      'probing/replay-check.ts imports families/codex/index.ts: probing may not import families/codex',
    );
    const upwards = await srcWith('families/opencode/probes.ts', (t) => `import '../../probing/index.js';\n${t}`);
    expect(await architectureViolations(upwards, await rules())).toContain(
      'families/opencode/probes.ts imports probing/index.ts: families/opencode may not import probing',
    );
  });

  it('a cycle, even between modules each allowed to import the other, and a module nobody listed', async () => {
    const table = new Map([
      ...(await rules()),
      ['contracts', new Set(['cassette', 'errors', 'fs', 'report', 'scan'])],
      ['scan', new Set(['cassette', 'errors', 'fs', 'contracts'])],
    ]);
    const src = await srcWith('scan/scan-secrets.ts', (t) => `import '../contracts/index.js';\n${t}`);
    await writeFile(join(src, 'contracts', 'uses-scan.ts'), "import '../scan/scan-secrets.js';\n");
    await writeFile(join(src, 'stray.ts'), "import './errors.js';\n");
    expect((await architectureViolations(src, table)).sort()).toEqual([
      'import cycle between contracts, scan',
      'stray.ts: module stray is not in the Layering table of docs/architecture.md',
    ]);
  });
});
