import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bodyDigest, headerLine } from '../../src/cassette/digest.js';
import { runBench, startBench } from '../helpers/cli.js';

/**
 * A digest is a cache, not a proof: anyone can write a cassette whose first
 * line carries the right digest of a body that is not a cassette at all.
 * Every command must still answer with a typed one-line error, never a crash.
 */

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** A committed cassette with one line replaced, and the digest recomputed so it looks untouched. */
async function forge(dir: string, replace: [RegExp, string]): Promise<string> {
  const original = await readFile('cassettes/claude-native/basic_turn.yaml', 'utf8');
  const body = original.slice(original.indexOf('\n') + 1).replace(replace[0], replace[1]);
  expect(body).not.toBe(original.slice(original.indexOf('\n') + 1));
  const file = join(dir, 'basic_turn.yaml');
  await writeFile(file, headerLine(bodyDigest(body)) + body);
  return file;
}

const FORGERIES: [string, [RegExp, string]][] = [
  ['a status that is text', [/status: 200/, 'status: "two hundred"']],
  ['interactions that are not a list', [/interactions:\n[\s\S]*$/, 'interactions: "none"\n']],
  ['a request that is null', [/ {4}request:\n {6}method: "GET"\n {6}path: "\/health"\n {6}headers: \{[^}]*\}/, '    request: null']],
  ['stream events that are a number', [/ {8}events:\n(?: {10}.*\n)+?(?= {8}end:)/, '        events: 5\n']],
];

describe('a cassette with a forged digest', () => {
  it.each(FORGERIES)(
    '%s: every command answers with the file, line and field, exit 2, no crash',
    async (_name, replace) => {
      const dir = await mkdtemp(join(tmpdir(), 'tapedeck-forged-'));
      dirs.push(dir);
      const folder = join(dir, 'claude-native');
      await cp('cassettes/claude-native', folder, { recursive: true });
      const file = await forge(folder, replace);
      for (const args of [
        ['inspect', file],
        ['verify', file],
        ['verify', folder],
        ['replay', file, '--port', '0'],
        ['drift', '--baseline', 'cassettes/claude-native', '--candidate', folder],
        ['fuzz', '--cassettes', folder, '--runs', '1'],
      ]) {
        const r = await runBench(args);
        expect(r.stderr, args.join(' ')).toMatch(
          new RegExp(`^bench: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+ \\S+: [^\\n]+\\n$`),
        );
        expect(r.code, args.join(' ')).toBe(2);
      }
      // bench scan reads it as text and says it is not a valid cassette, then scans it all the same.
      const scan = await runBench(['scan', folder]);
      expect(scan.stderr).toMatch(/basic_turn\.yaml/);
      expect(scan.stderr).not.toMatch(/internal error/);
      expect([0, 1]).toContain(scan.code);
    },
    120_000,
  );

  it('is caught by a long-running bench replay before it serves anything', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-forged-'));
    dirs.push(dir);
    const file = await forge(dir, [/status: 200/, 'status: "two hundred"']);
    await expect(startBench(['replay', file, '--port', '0'])).rejects.toThrow(
      /bench exited \(2\) before listening: bench: .*basic_turn\.yaml:\d+/,
    );
  });
});
