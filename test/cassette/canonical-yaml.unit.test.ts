import fc from 'fast-check';
import { dump, load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { writeCanonicalYaml } from '../../src/cassette/canonical-yaml.js';
import { readCanonicalYaml } from '../../src/cassette/read-canonical-yaml.js';
import { cassetteArb, jsonValueArb } from './arbitraries.js';

describe('canonical YAML', () => {
  it('writes every header, one named __proto__ included', () => {
    const headers = JSON.parse('{"__proto__":"p","b":"2","a":"1"}') as Record<string, string>;
    const text = writeCanonicalYaml({ headers });
    expect(text).toBe('headers: {"__proto__":"p","a":"1","b":"2"}\n');
    expect(Object.keys((YAML.parse(text) as { headers: object }).headers)).toEqual(['__proto__', 'a', 'b']);
  });

  it('orders each set of keys as its own, even when two sets joined would read alike', () => {
    // ["b\na"] and ["b", "a"] join to the same text: the order remembered for one must not serve the other.
    expect(readCanonicalYaml(writeCanonicalYaml({ labels: { 'b\na': '1' } }))).toEqual({ labels: { 'b\na': '1' } });
    expect(writeCanonicalYaml({ labels: { b: '2', a: '1' } })).toBe('labels:\n  a: "1"\n  b: "2"\n');
    expect(writeCanonicalYaml({ labels: { 'b\na': '1' } })).toBe('labels:\n  "b\\na": "1"\n');
  });

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

  it('declines text outside the subset it reads so a full parser takes over', () => {
    const declined = [
      'a: 1 # note\n',
      'a: &x 1\nb: *x\n',
      'a:\n- 1\n',
      '---\na: 1\n',
      'a:\n\t- 1\n',
      // Plain scalars the core schema reads as something else, or that go on past the line.
      'a: True\n',
      'a: NULL\n',
      'a: 017\n',
      'a: 0x1F\n',
      'a: 1.\n',
      'a: .5\n',
      'a: +1\n',
      'a: ~\n',
      'a: words # note\n',
      'a: key: value\n',
      'a: plain\n  continued\n',
      'a: |-\n  block\n',
      'a: -x\n',
    ];
    for (const text of declined) expect(readCanonicalYaml(text), text).toBeUndefined();
  });

  it('never merges a flow value that is not exactly one JSON value with its neighbours', () => {
    // Each pair would parse as the right number of values if the reader joined them: js-yaml refuses every one.
    const smuggled = [
      'a: [1\nb: "s"]\nc: {"k":1},{"m":2}\n',
      'a:\n  b: {\n      "a": 1\n    },{\n      "b": 2\n    }\n',
      'a: {"c":[3\nb: {"x":1},{"y":2}\nc: {"z":1}]}\n',
      'a: "x\\u0041", "y"\nb: 1\n',
    ];
    for (const text of smuggled) {
      expect(() => load(text), text).toThrow();
      expect(readCanonicalYaml(text), text).toBeUndefined();
    }
  });

  it('reads the plain scalars YAML libraries write where the core schema leaves no doubt', () => {
    const text = 'a: plain words\nb: /v1/items?order=asc\nc: 2026-01-01T00:00:00.000Z\nd: 0000000b\ne: omnigent://internal\nf: 12:30\n';
    const read = readCanonicalYaml(text);
    expect(read).toEqual(load(text));
    expect(read).toEqual({
      a: 'plain words',
      b: '/v1/items?order=asc',
      c: '2026-01-01T00:00:00.000Z',
      d: '0000000b',
      e: 'omnigent://internal',
      f: '12:30',
    });
  });

  // What an editor or a script leaves: another library's style. The reader takes it or declines; it never reads it otherwise.
  it('reads a document re-written by another YAML library as js-yaml does, or declines it', () => {
    const writers = [
      (doc: unknown) => YAML.stringify(doc, { lineWidth: 0 }),
      (doc: unknown) => YAML.stringify(doc),
      (doc: unknown) => dump(doc, { lineWidth: -1 }),
    ];
    const words = fc.oneof(
      fc.string(),
      fc.string({ unit: fc.constantFrom('a', 'Z', '0', '1', 'x', 'o', 'e', '.', '-', '+', ':', ' ', '#', '/', '_', "'", '"', '~') }),
      fc.constantFrom('True', 'null', 'NULL', '017', '0x1F', '1_000', '1e3', '.inf', '2026-01-01', '12:30', 'yes', 'a # b', 'a: b'),
    );
    // Mostly names as fields have them, so a good share of documents is read whole.
    const key = fc.oneof({ weight: 4, arbitrary: fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/) }, { weight: 1, arbitrary: fc.string() });
    const doc = fc.dictionary(
      key.filter((k) => k !== '__proto__'),
      fc.oneof(jsonValueArb, words, fc.array(words, { maxLength: 3 }), fc.dictionary(key, words, { maxKeys: 3 })),
      { maxKeys: 4 },
    );
    let read = 0;
    fc.assert(
      fc.property(doc, fc.constantFrom(...writers), (value, write) => {
        const text = write(value);
        const fast = readCanonicalYaml(text);
        if (fast === undefined) return;
        read++;
        expect(fast).toEqual(load(text));
      }),
      { numRuns: 2000 },
    );
    // It must read a good share, or it proves nothing.
    expect(read).toBeGreaterThan(400);
  });
});
