import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runBench } from '../helpers/cli.js';

/** A folder with one tapedeck.config.* of the given text, and `bench record --help` run in it. */
const dirs: string[] = [];
async function helpWith(name: string, text: string) {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-config-'));
  dirs.push(dir);
  await writeFile(join(dir, name), text);
  return { dir, ...(await runBench(['record', '--help'], { cwd: dir })) };
}
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const family = (fields: string) =>
  `export default { families: [{ id: 'mine', suite: 'mine', summary: 'a server of mine', folder: 'mine', packs: [], probes: [{ name: 'a', priority: 'P0' }], plan() {}, replay() {}, ${fields} }] };\n`;

describe("a project's tapedeck.config.* that cannot be used is refused in one line naming the file and the fix", () => {
  it('a family without what the registry needs', async () => {
    const r = await helpWith('tapedeck.config.mjs', "export default { families: [{ id: 'mine' }] };\n");
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `bench: ${join(r.dir, 'tapedeck.config.mjs')}: family mine has no suite (a string); see defineFamily`,
    ]);
  });

  it('a family whose id a built-in one has', async () => {
    const r = await helpWith('tapedeck.config.mjs', family("id: 'omnigent'").replace("id: 'mine', ", ''));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^bench: family "omnigent" \(suite mine\) clashes with the registered omnigent .*; give it an id and suite of its own\n$/,
    );
  });

  it('a TypeScript config that does not compile, and one that exports no object', async () => {
    const broken = await helpWith('tapedeck.config.ts', 'export default { families: [ ;\n');
    expect(broken.code).toBe(2);
    expect(broken.stderr.trim().split('\n')).toHaveLength(1);
    expect(broken.stderr).toMatch(/tapedeck\.config\.ts: cannot be loaded \(Transform failed .*Unexpected ";"\)$/m);
    const empty = await helpWith('tapedeck.config.ts', 'export const families: string[] = [];\n');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('tapedeck.config.ts: export default an object, e.g. export default { families: [myFamily] }');
  });

  it('a good one adds its family to --help, in TypeScript as in JavaScript', async () => {
    const r = await helpWith(
      'tapedeck.config.ts',
      family('').replace("summary: 'a server of mine'", "summary: 'a server of mine' as string"),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('mine: a server of mine');
  });
});
