import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Cassette, makeRedactor, redactionPlaceholder } from '../../src/cassette/index.js';
import { GrowingList, inScrubOrder } from '../../src/cassette/redaction/growing-secret-list.js';
import { sameScrubList } from '../../src/cassette/redaction/index.js';
import { type SecretEntry, secretsIn } from '../../src/cassette/redaction/secret-index.js';

/** What scrubbing did before the index: ask every entry, in list order. */
function scrubAskingAll(text: string, list: readonly SecretEntry[]): string {
  let out = text;
  for (const [value, name] of list) if (out.includes(value)) out = out.split(value).join(redactionPlaceholder(name));
  return out;
}

function scrubIndexed(text: string, list: readonly SecretEntry[]): string {
  let out = text;
  for (const [value, name] of secretsIn(text, list, redactionPlaceholder))
    if (out.includes(value)) out = out.split(value).join(redactionPlaceholder(name));
  return out;
}

/** The list as the redactor builds it at once: each secret, then its spellings, longest first, ties in that order. */
function listAtOnce(secrets: readonly SecretEntry[], spellingsOf: (v: string) => string[], min: number): SecretEntry[] {
  const list = new Map<string, string>();
  for (const [value, name] of secrets) {
    if (value.length < min) continue;
    list.set(value, name);
    for (const s of spellingsOf(value)) if (!list.has(s)) list.set(s, name);
  }
  return [...list].sort((a, b) => b[0].length - a[0].length);
}

// A small alphabet, placeholder characters included, so entries overlap, nest and meet placeholders often.
const piece = fc.stringMatching(/^[ab<>:redtc-]{1,9}$/);
const names = fc.constantFrom('api-key', 'token', 'a', 'redacted', 'cookie');
// At least sixteen: shorter lists are asked entry by entry and never reach the index.
const entries = fc.uniqueArray(fc.tuple(piece, names), { selector: ([v]) => v, minLength: 16, maxLength: 60 });

describe('secret index', () => {
  it('scrubs every text exactly as asking every entry did, placeholders written on the way included', () => {
    fc.assert(
      fc.property(entries, fc.array(piece, { maxLength: 12 }), (list, parts) => {
        const sorted = [...list].sort((a, b) => b[0].length - a[0].length) as SecretEntry[];
        const text = parts.join('');
        expect(scrubIndexed(text, sorted)).toBe(scrubAskingAll(text, sorted));
        // A list in any other order (a binary body's byte spellings) is scrubbed in its own order too.
        expect(scrubIndexed(text, list as SecretEntry[])).toBe(scrubAskingAll(text, list as SecretEntry[]));
      }),
      { numRuns: 1000 },
    );
  });

  it('grows a list piece by piece, in place, into the entries and scrub order of the list built at once', () => {
    const spellingsOf = (v: string) => [`${v}%`, v.toUpperCase(), v.slice(1)].filter((s) => s !== v);
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.tuple(piece, names), { maxLength: 8 }), { maxLength: 8 }),
        fc.array(piece, { maxLength: 10 }),
        (pieces, parts) => {
          const growing = new GrowingList(spellingsOf, 3, redactionPlaceholder);
          const seen = new Map<string, string>();
          let list: SecretEntry[] = [];
          let version = growing.version;
          for (const found of pieces) {
            const added: SecretEntry[] = [];
            for (const [v, n] of found)
              if (!seen.has(v)) {
                seen.set(v, n);
                added.push([v, n]);
              }
            const before = [...list];
            list = growing.grow(added);
            const reference = listAtOnce([...seen], spellingsOf, 3);
            // Past the indexed size (16) entries are appended, in the index's order; below it the list is asked
            // entry by entry, so it must be in scrub order itself.
            expect(list.length >= 16 ? inScrubOrder(list) : list).toEqual(reference);
            // The version says whether the list changed.
            expect(growing.version !== version).toBe(!sameScrubList(before, list));
            version = growing.version;
            const text = parts.join('');
            expect(scrubIndexed(text, list)).toBe(scrubAskingAll(text, reference));
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('renames a listed spelling found later as a secret of its own, as the list built at once does', () => {
    const spellingsOf = (v: string) => [v.slice(1)];
    const growing = new GrowingList(spellingsOf, 3, redactionPlaceholder);
    growing.grow([['abcdef', 'token']]);
    const version = growing.version;
    const list = growing.grow([['bcdef', 'cookie']]);
    expect(growing.version).not.toBe(version);
    expect(list).toEqual(
      listAtOnce(
        [
          ['abcdef', 'token'],
          ['bcdef', 'cookie'],
        ],
        spellingsOf,
        3,
      ),
    );
    expect(list).toEqual([
      ['abcdef', 'token'],
      ['bcdef', 'cookie'],
      ['cdef', 'cookie'],
    ]);
    // Found again under the name it has: the list does not change.
    const now = growing.version;
    growing.grow([['bcdef', 'cookie']]);
    expect(growing.version).toBe(now);
    // The same two found in one piece (fast-check's find: the spelling was renamed before it was ever listed).
    const together = new GrowingList(spellingsOf, 3, redactionPlaceholder).grow([
      ['abcdef', 'token'],
      ['bcdef', 'cookie'],
    ]);
    expect(together).toEqual(list);
  });

  it('keeps the cost of a journal piece flat as a recording collects thousands of secrets', () => {
    const session = makeRedactor().session();
    const piece = (n: number): Cassette => ({
      version: 1,
      meta: { recorder: '', target: '', recordedAt: '' },
      interactions: [
        {
          seq: n,
          request: { method: 'GET', path: `/v1/items/${n}`, headers: {} },
          response: {
            status: 200,
            headers: {},
            body: {
              json: {
                data: Array.from({ length: 60 }, (_, k) => ({
                  id: `item_${n}_${k}`,
                  text: `reply ${n} part ${k}`,
                  // A fresh credential in every answer, as signed URLs and session tokens are.
                  ...(k % 20 === 0 ? { api_key: `sk-proj-${'a1B2c3D4'.repeat(5)}${n}x${k}` } : {}),
                })),
              },
            },
          },
          timing: { start: n },
        },
      ],
    });
    const spent = (from: number, to: number) => {
      const started = performance.now();
      for (let n = from; n < to; n++) session.redact(piece(n));
      return performance.now() - started;
    };
    spent(0, 50); // compiled and warm
    const early = spent(50, 250);
    spent(250, 1200);
    const late = spent(1200, 1400);
    // Asking every spelling of every secret made the late pieces about 15 times dearer than the early ones.
    expect(late / early).toBeLessThan(3);
    // And the secrets are still gone.
    expect(JSON.stringify(session.redact(piece(1400)))).not.toContain('sk-proj-');
  });
});
