import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const TEST = join(import.meta.dirname, '..');

/**
 * What a unit test may not reach for: a process, a socket, a server, the CLI. The unit project runs its files
 * in one process without isolation, in well under a minute; one of these would make it neither.
 */
const FORBIDDEN: [RegExp, string][] = [
  [/from 'node:(child_process|http|https|http2|net|dgram|worker_threads|cluster)'/, 'a Node module for processes or sockets'],
  [/from '\.\.\/helpers\/(cli|servers)\.js'/, 'the helpers that run bench or start servers'],
  [
    /\b(startServer|startBench|runBench|startReplayServer|startRecordingProxy|startMockModel|startSimulator|startPeer|recordFamily|recordTarget|replayCheck|runDrift|useCassette|cassetteHandlers|cassetteDispatcher)\b/,
    'a function that starts a server, a recording or a replay',
  ],
  [/\bfetch\(/, 'a request over the network'],
  [/'\.\.\/\.\.\/dist\//, 'the built package (npm test builds it; test:unit does not)'],
];

/** Each forbidden thing a test file's text reaches for, as `file: what`. */
function unitTierBreaches(file: string, text: string): string[] {
  return FORBIDDEN.filter(([pattern]) => pattern.test(text)).map(([, what]) => `${file}: ${what}`);
}

async function unitFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'peers') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await unitFiles(path)));
    else if (entry.name.endsWith('.unit.test.ts')) out.push(path);
  }
  return out;
}

describe('the unit tier', () => {
  it('holds only tests of pure modules: no process, socket, server or built package', async () => {
    const files = await unitFiles(TEST);
    expect(files.length).toBeGreaterThan(20);
    const breaches: string[] = [];
    // This file spells the forbidden things out in its own example.
    for (const file of files.filter((f) => f !== import.meta.filename))
      breaches.push(...unitTierBreaches(relative(TEST, file), await readFile(file, 'utf8')));
    expect(breaches).toEqual([]);
  });

  it('names what a test reaches for that the tier forbids', () => {
    const text = "import { spawn } from 'node:child_process';\nimport { runBench } from '../helpers/cli.js';\nawait fetch(url);";
    expect(unitTierBreaches('x.unit.test.ts', text)).toEqual([
      'x.unit.test.ts: a Node module for processes or sockets',
      'x.unit.test.ts: the helpers that run bench or start servers',
      'x.unit.test.ts: a function that starts a server, a recording or a replay',
      'x.unit.test.ts: a request over the network',
    ]);
  });
});
