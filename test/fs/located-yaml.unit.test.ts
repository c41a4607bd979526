import fc from 'fast-check';
import { dump } from 'js-yaml';
import { expect, it } from 'vitest';
import { parse, stringify, type ToStringOptions } from 'yaml';
import { parseLocatedYaml } from '../../src/fs/located-yaml.js';

// Strings a YAML reader could take for something else: numbers of every base, bools, nulls, dates, indicators.
const tricky = fc.constantFrom(
  '1_000',
  '0b101',
  '0x1F',
  '0o17',
  '017',
  '+1',
  '.5',
  '1e3',
  '1.',
  '~',
  'null',
  'Null',
  'yes',
  'on',
  'True',
  'FALSE',
  '2026-01-01',
  '2026-01-01T10:00:00Z',
  '.inf',
  '-.INF',
  '.NaN',
  '&anchor',
  '*alias',
  '!tag',
  '%x',
  '@x',
  '`x',
  '#x',
  'a: b',
  '- x',
  '? x',
  '[x]',
  '{x}',
  '<<',
  '__proto__',
  '',
  ' ',
  'tab\there',
  'line\nbreak',
  'cr\r\nlf',
  '\u2028',
  'é',
  '😀',
  "it's",
  '"q"',
);
const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), tricky);
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(text, tie('node'), { maxKeys: 4 }),
  ),
})).node;

const styles = fc.record({
  defaultStringType: fc.constantFrom('PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL', 'BLOCK_FOLDED'),
  collectionStyle: fc.constantFrom('any', 'block', 'flow'),
  indent: fc.integer({ min: 1, max: 6 }),
  lineWidth: fc.constantFrom(0, 20, 80),
});

const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

it('reads what any ordinary YAML writer wrote exactly as the located parser does, whichever reader takes it', () => {
  fc.assert(
    // A mapping at the top, as every cassette and pack is (the two readers differ on a top-level block scalar with
    // an indentation indicator, where js-yaml follows the spec's -1 indentation and yaml does not).
    fc.property(fc.dictionary(text, value, { minKeys: 1, maxKeys: 4 }), styles, fc.boolean(), (v, options, viaJsYaml) => {
      const written = viaJsYaml ? dump(v) : stringify(v, options as ToStringOptions);
      const read = parseLocatedYaml(written);
      expect(read).toHaveProperty('value');
      // What the located parser (the yaml library) reads is the reference: a writer's own slip (yaml writes a
      // block literal of one space that reads back as "") is read the same way by both.
      const reference = plain(parse(written));
      expect(plain((read as { value: unknown }).value)).toEqual(reference);
      if (!viaJsYaml && options.defaultStringType === 'PLAIN') expect(reference).toEqual(plain(v));
    }),
    { numRuns: 500 },
  );
});

it('anchors, duplicate keys and broken text take the located path: the same values, and errors with their line', () => {
  expect(parseLocatedYaml('a: &x [1, 2]\nb: *x\n')).toEqual({ value: { a: [1, 2], b: [1, 2] } });
  expect(parseLocatedYaml('a: 1\nb: 2\na: 3\n')).toMatchObject({ fault: { line: 3 } });
  expect(parseLocatedYaml('a: [1, 2\nb: 3\n')).toMatchObject({ fault: { detail: expect.stringMatching(/^invalid YAML: /) } });
  expect(parseLocatedYaml('')).toEqual({ value: null });
});
