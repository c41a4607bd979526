import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapJsonStrings } from '../../src/cassette/visit.js';

/** What the walk gave before it shared what it left alone: a full copy, every string and key mapped. */
function copied(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => copied(v, f));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [f(k), copied(v, f)]));
  return value;
}

describe('mapJsonStrings', () => {
  it('gives the same value as a full copy, and never changes its input', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ maxLength: 2 }), (value, mark) => {
        const f = (s: string) => (mark !== '' && s.includes(mark) ? `<${s}>` : s);
        const before = structuredClone(value);
        const out = mapJsonStrings(value, { value: f, key: f });
        expect(out).toEqual(copied(value, f));
        expect(value).toEqual(before);
      }),
    );
  });

  it('hands back the input itself when no string or key changes', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(mapJsonStrings(value, { value: (s) => s, key: (k) => k })).toBe(value);
      }),
    );
  });

  it('shares the parts no mapping touched and copies the path to a change', () => {
    const doc = { keep: { deep: ['a', 'b'] }, change: ['x', 'secret'] };
    const out = mapJsonStrings(doc, { value: (s) => (s === 'secret' ? '<s>' : s) }) as typeof doc;
    expect(out).toEqual({ keep: { deep: ['a', 'b'] }, change: ['x', '<s>'] });
    expect(out).not.toBe(doc);
    expect(out.keep).toBe(doc.keep);
    expect(doc.change[1]).toBe('secret');
  });
});
