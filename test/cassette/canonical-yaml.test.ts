import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { writeCanonicalYaml } from '../../src/cassette/canonical-yaml.js';
import { readCanonicalYaml } from '../../src/cassette/read-canonical-yaml.js';
import { cassetteArb, jsonValueArb } from './arbitraries.js';

describe('canonical YAML', () => {
  it('reads back exactly what a full YAML parser reads, for any JSON-like document', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string().filter((k) => k !== '__proto__'),
          fc.oneof(jsonValueArb, fc.record({ json: jsonValueArb })),
        ),
        (doc) => {
          const text = writeCanonicalYaml(doc);
          const fast = readCanonicalYaml(text);
          expect(fast).toEqual(YAML.parse(text) ?? undefined);
          expect(fast ?? {}).toEqual(doc);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('reads back exactly what a full YAML parser reads, for cassettes', () => {
    fc.assert(
      fc.property(cassetteArb, (cassette) => {
        const text = writeCanonicalYaml(cassette as unknown as Record<string, unknown>);
        expect(readCanonicalYaml(text)).toEqual(YAML.parse(text));
      }),
      { numRuns: 200 },
    );
  });

  it('reads a __proto__ key as an own property, never as the prototype', () => {
    const doc = readCanonicalYaml('"__proto__":\n  polluted: true\n');
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    expect(Object.hasOwn(doc ?? {}, '__proto__')).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('writes the same bytes whatever the order the keys were set in', () => {
    const a = writeCanonicalYaml({ version: 1, meta: { target: 't', recorder: 'r' }, interactions: [] });
    const b = writeCanonicalYaml({ interactions: [], meta: { recorder: 'r', target: 't' }, version: 1 });
    expect(a).toBe(b);
  });

  it('declines text outside the canonical subset so a full parser takes over', () => {
    for (const text of ['a: 1 # note\n', 'a: &x 1\nb: *x\n', 'a:\n- 1\n', 'a: plain words\n', '---\na: 1\n', 'a:\n\t- 1\n']) {
      expect(readCanonicalYaml(text), text).toBeUndefined();
    }
  });
});
