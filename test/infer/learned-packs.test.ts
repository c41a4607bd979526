import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/families/index.js';
import { readPackFiles, verifyCassette } from '../../src/contracts/index.js';
import { loadRecordings } from '../../src/infer/index.js';
import { runBench } from '../helpers/cli.js';
import { singleRuleBreaks } from './breaks.js';

const ROOT = join(import.meta.dirname, '..', '..');
const committed = (folder: string) => relative(process.cwd(), join(ROOT, 'cassettes', folder)) || '.';

interface FamilyCase {
  family: string;
  /** How `bench record` runs its simulator. */
  record: string[];
  /** The committed folder of that simulator's recordings: what the family's own pack is broken on. */
  folder: string;
  /** Every committed folder of the family, real servers included. */
  all: string[];
}

const FAMILIES: FamilyCase[] = [
  {
    family: 'omnigent',
    record: ['--harness', 'kiro-native'],
    folder: 'kiro-native',
    all: ['kiro-native', 'claude-native', 'codex-native', 'cursor-native', 'qwen-native', 'codex-native-real', 'openai-agents-real'],
  },
  { family: 'hermes', record: ['--target', 'hermes'], folder: 'hermes', all: ['hermes', 'hermes-real'] },
  { family: 'codex', record: ['--target', 'codex'], folder: 'codex-app-server', all: ['codex-app-server', 'codex-app-server-real'] },
  { family: 'opencode', record: ['--target', 'opencode'], folder: 'opencode-serve', all: ['opencode-serve', 'opencode-serve-real'] },
  { family: 'mcp', record: ['--target', 'mcp'], folder: 'mcp', all: ['mcp', 'mcp-everything-real', 'mcp-fastmcp-real'] },
  { family: 'ag-ui', record: ['--target', 'ag-ui'], folder: 'ag-ui', all: ['ag-ui', 'ag-ui-pydantic-real', 'ag-ui-langgraph-real'] },
];

interface VerifyJson {
  violations: { pack: string; rule: string; cassette: string; message: string }[];
}

/** Three recordings of the family's simulator, as a team records its server a few times. */
async function recordThrice(c: FamilyCase, root: string): Promise<string[]> {
  const dirs: string[] = [];
  for (const seed of [1, 2, 3]) {
    const out = join(root, `seed${seed}`);
    const r = await runBench(['record', ...c.record, '--seed', String(seed), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    dirs.push(join(out, c.folder));
  }
  return dirs;
}

describe.each(FAMILIES)('bench infer on the $family simulator', (c) => {
  it('learns a pack its recordings verify, lists what the committed recordings break, drops it under --holdout, and catches the family pack’s single-rule breaks', async () => {
    const root = await mkdtemp(join(tmpdir(), `tapedeck-infer-${c.family}-`));
    const learned = await recordThrice(c, root);
    const pack = join(root, 'pack.yaml');
    const infer = await runBench(['infer', ...learned, '-o', pack]);
    expect(infer.code, infer.stderr).toBe(0);
    expect(infer.stderr).toMatch(
      /^bench infer: .*pack\.yaml: \d+ pack\(s\) \(.+\), \d+ rules, \d+ payload schemas, from \d+ streams and \d+ events\n$/,
    );
    // The same recordings, the same file, byte for byte.
    const again = join(root, 'again.yaml');
    expect((await runBench(['infer', ...learned, '-o', again])).code).toBe(0);
    expect(await readFile(again, 'utf8')).toBe(await readFile(pack, 'utf8'));
    const own = await runBench(['verify', ...learned, '--pack', pack]);
    expect(own.code, own.stdout).toBe(0);

    // Every committed recording of the family, real servers included: what breaks is listed, rule and recording.
    const folders = c.all.map(committed);
    const checked = await runBench(['verify', ...folders, '--pack', pack, '--format', 'json']);
    const report = JSON.parse(checked.stdout) as VerifyJson;
    const failing = new Map<string, string>();
    for (const v of report.violations)
      if (!failing.has(`${v.pack} ${v.rule}`)) failing.set(`${v.pack} ${v.rule}`, `${v.cassette}: ${v.message}`);
    console.log(
      `${c.family}: rules the committed recordings break:\n${[...failing].map(([r, w]) => `  ${r} (${w})`).join('\n') || '  none'}`,
    );

    // Held out, those recordings drop each rule they break, and the pack written then verifies everything clean.
    const heldOut = (await loadRecordings(folders)).length;
    const held = join(root, 'held.yaml');
    const holdout = await runBench(['infer', ...learned, ...folders, '--holdout', String(heldOut), '-o', held]);
    expect(holdout.code, holdout.stderr).toBe(0);
    for (const rule of failing.keys())
      if (!/ (payload-schema|known-event-types)$/.test(rule)) expect(holdout.stderr).toContain(`broke ${rule} in `);
    const all = await runBench(['verify', ...learned, ...folders, '--pack', held]);
    expect(all.code, all.stdout).toBe(0);

    // The family pack's own breaks of its simulator's committed recordings: at least 90% caught, each listed.
    const packs = readPackFiles(pack);
    const breaks = singleRuleBreaks(await loadRecordings([committed(c.folder)]));
    expect(breaks.length).toBeGreaterThan(2);
    const rows = breaks.map((b) => ({
      ...b,
      caught: verifyCassette(b.cassette, b.recording, packs).rules.some((r) => r.violations.length > 0),
    }));
    console.log(
      `${c.family}: ${rows.filter((r) => r.caught).length}/${rows.length} single-rule breaks caught\n${rows.map((r) => `  ${r.caught ? 'caught' : 'MISSED'} ${r.rule}: ${r.edit} of ${r.recording}`).join('\n')}`,
    );
    expect(rows.filter((r) => r.caught).length / rows.length).toBeGreaterThanOrEqual(0.9);
  });
});
