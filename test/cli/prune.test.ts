import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUntouchedSinceWritten } from '../../src/cassette/digest.js';
import { parseCassette } from '../../src/cassette/index.js';
import { runBench, startBench } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/servers.js';
import { runVitest, userProject } from '../helpers/vitest-project.js';

/** Six items a user's API serves; the tests that replay read only the odd ones. */
const ITEMS = [1, 2, 3, 4, 5, 6];
const USED = [1, 3, 5];

let project: string;
let api: TestServer;
beforeAll(async () => {
  api = await startServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ item: req.url, words: 'a'.repeat(40) }));
  });
  project = await userProject('tapedeck-prune-');
  await writeFile(
    join(project, 'record.test.ts'),
    `import { expect, it } from 'vitest';
import { useCassette } from 'tapedeck-bench/vitest';
useCassette('./items.yaml', { record: 'once' });
it('reads every item from the real server', async () => {
  for (const n of ${JSON.stringify(ITEMS)}) expect((await (await fetch(process.env.API + '/items/' + n)).json()).item).toBe('/items/' + n);
});
`,
  );
  await writeFile(
    join(project, 'half.test.ts'),
    `import { expect, it } from 'vitest';
import { useCassette } from 'tapedeck-bench/vitest';
useCassette('./items.yaml', { failOnUnused: process.env.STRICT === '1' });
it('reads the odd items', async () => {
  for (const n of ${JSON.stringify(USED)}) expect((await (await fetch('http://api.test/items/' + n)).json()).item).toBe('/items/' + n);
});
`,
  );
}, 60_000);
afterAll(async () => {
  await api.close();
  await rm(project, { recursive: true, force: true });
});

/** The cassette's items as text, by seq: what byte for byte means for a recording. */
function itemsBySeq(text: string): Map<number, string> {
  const body = text.slice(text.indexOf('\ninteractions:\n'));
  const parts = body.split(/^(?= {2}- seq: )/m).slice(1);
  return new Map(parts.map((p) => [Number(/seq: (\d+)/.exec(p)?.[1]), p]));
}

describe('bench prune after a vitest run', () => {
  it('leaves exactly the half the run used, byte for byte, and the run still passes with nothing unused', async () => {
    const recorded = await runVitest(project, 'record.test.ts', { API: api.url });
    expect(recorded.out).toMatch(/Tests\s+1 passed/);
    const file = join(project, 'items.yaml');
    const before = await readFile(file, 'utf8');
    expect(parseCassette(before).interactions).toHaveLength(6);

    const usage = join(project, '.tapedeck-usage');
    const half = await runVitest(project, 'half.test.ts', { TAPEDECK_USAGE: usage });
    expect(half.out).toMatch(/Tests\s+1 passed/);

    const dry = await runBench(['prune', '--usage', usage, '--dry-run'], { cwd: project });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(
      'items.yaml: would remove 3, kept 3: items.yaml #2 GET /items/2, items.yaml #4 GET /items/4, items.yaml #6 GET /items/6',
    );
    expect(await readFile(file, 'utf8')).toBe(before);

    const pruned = await runBench(['prune', 'items.yaml', '--usage', usage], { cwd: project });
    expect(pruned.stderr).toBe('');
    expect(pruned.code).toBe(0);
    const after = await readFile(file, 'utf8');
    const was = itemsBySeq(before);
    const now = itemsBySeq(after);
    expect([...now.keys()]).toEqual(USED);
    for (const seq of USED) expect(now.get(seq)).toBe(was.get(seq));
    // Everything but the removed items and the digest line is as it was; the digest line is the tool's again.
    const removed = [2, 4, 6].map((seq) => was.get(seq) as string);
    expect(after.slice(after.indexOf('\n'))).toBe(removed.reduce((t, item) => t.replace(item, ''), before.slice(before.indexOf('\n'))));
    expect(isUntouchedSinceWritten(after)).toBe(true);

    const strict = await runVitest(project, 'half.test.ts', { STRICT: '1' });
    expect(strict.out).toMatch(/Tests\s+1 passed/);
    expect(strict.code).toBe(0);
    // The file changed since the usage was written: a second prune from it is refused, in one line.
    const stale = await runBench(['prune', '--usage', usage], { cwd: project });
    expect(stale.code).toBe(2);
    expect(stale.stderr.trim()).toBe('bench: items.yaml changed since the run that wrote its usage: run the tests again, then prune');
  }, 240_000);

  it('prunes what a bench replay left unused, from the usage file it writes on exit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-prune-replay-'));
    try {
      const file = join(dir, 'items.yaml');
      await writeFile(file, await readFile(join(project, 'items.yaml'), 'utf8'));
      const usage = join(dir, 'usage.json');
      const replay = await startBench(['replay', file, '--usage', usage]);
      expect((await fetch(`${replay.url}/items/3`)).status).toBe(200);
      replay.child.kill('SIGTERM');
      await replay.exit();
      expect(replay.stderr()).toMatch(
        /2 recorded interactions were never requested: items\.yaml #1 GET \/items\/1, items\.yaml #5 GET \/items\/5 \(bench prune --usage .*usage\.json removes them\)/,
      );
      const pruned = await runBench(['prune', '--usage', usage], { cwd: dir });
      expect(pruned.stdout).toContain('items.yaml: removed 2, kept 1');
      expect(parseCassette(await readFile(file, 'utf8')).interactions.map((i) => i.seq)).toEqual([3]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses a usage that is not one, and names the flag when none is given', async () => {
    const bad = join(project, 'bad-usage.json');
    await writeFile(bad, '{"cassettes": []}');
    const wrong = await runBench(['prune', '--usage', bad], { cwd: project });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
    expect(wrong.stderr).toContain('not a usage file (tapedeckUsage');
    const none = await runBench(['prune'], { cwd: project });
    expect(none.code).toBe(2);
    expect(none.stderr.trim()).toBe('bench: name what the runs used: --usage FILE|FOLDER (see bench prune --help)');
  }, 60_000);
});
