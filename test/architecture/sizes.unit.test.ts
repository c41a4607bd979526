import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyOf, MAX_FILE_LINES, MAX_UNIT_LINES, oversized, oversizedUnits } from './sizes.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');
/** What is over the limits today, with its size then: an entry may shrink and must go once it fits; none may be added. */
const ALLOWLIST = join(import.meta.dirname, 'size-allowlist.json');

describe(`no src file over ${MAX_FILE_LINES} lines, no function, closure or class over ${MAX_UNIT_LINES}`, () => {
  it('everything over a limit is on the allowlist, at most at the size it had there', async () => {
    const allowed = JSON.parse(await readFile(ALLOWLIST, 'utf8')) as Record<string, number>;
    const grown = (await oversized(SRC)).filter((o) => !(keyOf(o) in allowed) || o.lines > (allowed[keyOf(o)] as number));
    expect(grown.map((o) => `${keyOf(o)}: ${o.lines} lines (split it by responsibility)`)).toEqual([]);
  });

  it('the allowlist only shrinks: an entry that now fits, or is gone, must be taken off', async () => {
    const allowed = JSON.parse(await readFile(ALLOWLIST, 'utf8')) as Record<string, number>;
    const over = new Set((await oversized(SRC)).map(keyOf));
    expect(Object.keys(allowed).filter((k) => !over.has(k))).toEqual([]);
  });
});

describe('the files the layout work split stay split', () => {
  it('no entry of the allowlist is one of them, or what they became', async () => {
    const allowed = Object.keys(JSON.parse(await readFile(ALLOWLIST, 'utf8')) as Record<string, number>);
    const redaction = ['config', 'secrecy', 'finder', 'pass', 'state', 'collect', 'scrub', 'split.ts', 'session', 'redactor', 'values'];
    const split = [
      'cassette/redact.ts',
      ...redaction.map((f) => `cassette/redaction/${f}`),
      'replayer/engine',
      'recorder/recording-proxy',
      'recorder/proxy/',
      'replayer/ws',
      'drift/compare',
      'recorder/journal',
    ];
    expect(allowed.filter((k) => split.some((f) => k.startsWith(f)))).toEqual([]);
  });
});

describe('the size check fails where a unit is too long', () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
  it('finds a long arrow function, method and class by the name a reader looks for', () => {
    const text = `const short = () => 1;\nconst long = () => {\n${body(80)}\n};\nclass Big {\n  m() {\n${body(79)}\n  }\n}\n`;
    expect(oversizedUnits('x.ts', text).map((o) => [o.unit, o.lines])).toEqual([
      ['long@2', 82],
      ['Big@84', 83],
      ['m@85', 81],
    ]);
  });
});
