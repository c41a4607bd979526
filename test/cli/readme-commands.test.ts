import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runBench } from '../helpers/cli.js';
import { userDocs } from '../helpers/docs.js';

/**
 * Every `npx bench ...` line of the code blocks of the README and the guides, run as written in a
 * folder holding a copy of the committed cassettes. Lines that need what a
 * reader brings (a live server, a vendor binary, their own recordings) or
 * show placeholders are set aside by a rule, and the rules are counted, so
 * a new example runs unless it says why it cannot.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');

const SET_ASIDE: [RegExp, string][] = [
  [/--server |--peer |--target http/, 'a live server or a vendor binary'],
  [/\[|\$\{\{|<|\\$/, 'a placeholder or a continued line'],
  [/recordings\/|\/tmp\/|session\.har/, "the reader's own files"],
  [/echo-agent/, "the example server's family, run from its folder (test/examples/own-server.test.ts runs each command)"],
  [/^replay /, 'a server that runs until stopped (tested in test/cli/replay.test.ts)'],
  [/\.tapedeck-usage/, "the usage the reader's own test run writes (tested in test/cli/prune.test.ts)"],
  [/^sim /, 'a simulator that runs until stopped (tested in test/cli/sim.test.ts)'],
  // Minutes of work: `npm run test:soak` runs these as written; npm test runs fuzz in test/cli/fuzz.test.ts at 15 variations.
  ...(process.env.TAPEDECK_SOAK ? [] : [[/^fuzz (?!.*--cassettes)/, 'long work (every probe), run by the soak'] as [RegExp, string]]),
];

async function readmeCommands(): Promise<string[]> {
  const blocks = (await userDocs()).flatMap(({ text }) => [...text.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string));
  return blocks.flatMap((b) =>
    b
      .split('\n')
      .map((line) => /^\s*(?:\$ |- run: )?npx bench (.+?)(?:\s+#.*)?$/.exec(line)?.[1])
      .filter((c): c is string => c !== undefined),
  );
}

// The soak runs the whole-repository fuzz lines at 100 to 200 variations a probe: minutes, more as cassettes are added.
const TIMEOUT_MS = process.env.TAPEDECK_SOAK ? 900_000 : 300_000;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tapedeck-readme-cmds-'));
  await cp(join(ROOT, 'cassettes'), join(dir, 'cassettes'), { recursive: true });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it(
  'every runnable `npx bench` line of the README runs as written and exits 0',
  async () => {
    const commands = await readmeCommands();
    const runnable = commands.filter((c) => !SET_ASIDE.some(([rule]) => rule.test(c)));
    if (process.env.TAPEDECK_SOAK) expect(runnable.some((c) => c.startsWith('fuzz '))).toBe(true);
    expect(commands.length).toBeGreaterThan(20);
    expect(runnable.length).toBeGreaterThanOrEqual(10);
    for (const command of runnable) {
      const r = await runBench(command.split(/\s+/), { cwd: dir });
      expect(r.code, `npx bench ${command}\n${r.stderr}`).toBe(0);
      expect(r.stdout.length + r.stderr.length, command).toBeGreaterThan(0);
    }
  },
  TIMEOUT_MS,
);
