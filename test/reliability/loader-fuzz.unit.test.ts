import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CassetteError, parseCassette } from '../../src/cassette/index.js';
import { runsOf } from '../helpers/soak.js';

const REAL = readFileSync(join(import.meta.dirname, '..', '..', 'cassettes', 'cursor-native', 'basic_turn.yaml'), 'utf8');
const RUNS = Number(process.env.TAPEDECK_FUZZ_RUNS ?? runsOf(300, 3000));

/** A parse either yields a cassette or a CassetteError: nothing else, ever. */
function parsesOrRefuses(text: string): void {
  try {
    parseCassette(text, 'fuzz.yaml');
  } catch (err) {
    if (!(err instanceof CassetteError)) throw new Error(`not a CassetteError: ${(err as Error)?.stack ?? String(err)}`);
    expect(err.message.startsWith('fuzz.yaml')).toBe(true);
    expect(err.message).not.toContain('\n');
  }
}

const edit = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.nat(200) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.string({ unit: 'binary', maxLength: 20 }) }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.constantFrom(':', '- ', '{', '}', '[', '"', "'", '\n', '  ', '\t', '&a ', '*a', '!!str ', '#', '---\n', '|\n', '? '),
  }),
  fc.record({ kind: fc.constant('swapLines' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);

type Edit = { kind: string; at?: number; length?: number; text?: string; a?: number; b?: number };

function apply(text: string, edits: Edit[]): string {
  let out = text;
  for (const e of edits) {
    const at = (e.at ?? 0) % (out.length + 1);
    if (e.kind === 'delete') out = out.slice(0, at) + out.slice(at + (e.length ?? 0));
    else if (e.kind === 'insert') out = out.slice(0, at) + (e.text ?? '') + out.slice(at);
    else if (e.kind === 'truncate') out = out.slice(0, at);
    else {
      const lines = out.split('\n');
      const a = (e.a ?? 0) % lines.length;
      const b = (e.b ?? 0) % lines.length;
      [lines[a], lines[b]] = [lines[b] as string, lines[a] as string];
      out = lines.join('\n');
    }
  }
  return out;
}

describe('the cassette loader under fuzzing', () => {
  it(`refuses random text with a one-line CassetteError, never a crash (${RUNS} cases)`, () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 400 }), parsesOrRefuses), { numRuns: RUNS });
  });

  it(
    `refuses mutated real cassettes with a one-line CassetteError, never a crash (${RUNS} cases)`,
    () => {
      fc.assert(
        fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => parsesOrRefuses(apply(REAL, edits))),
        { numRuns: RUNS },
      );
    },
    60_000 + RUNS * 40,
  );

  it('keeps the error one line, and quiet, when a YAML key is itself a multi-line mapping (a fuzz counterexample)', async () => {
    const text = REAL.replace('      stream:\n', "      stream:\n        ? data: '{}'\n          at: 1\n        : x\n");
    expect(text).not.toBe(REAL);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      expect(() => parseCassette(text, 'fuzz.yaml')).toThrow(CassetteError);
      parsesOrRefuses(text);
      await new Promise(setImmediate); // warnings are emitted on a later tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });
});
