import fc from 'fast-check';
import { expect, it } from 'vitest';
import { pickShard } from '../../src/fs/shard.js';

it('the n shards of any list cover it exactly once, differ in size by one at most, and do not depend on the order it came in', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { maxLength: 60 }),
      fc.integer({ min: 1, max: 9 }),
      (paths, n) => {
        const shards = Array.from({ length: n }, (_, i) => pickShard(paths, { index: i + 1, count: n }, (p) => p));
        expect(shards.flat().sort()).toEqual([...paths].sort());
        const sizes = shards.map((s) => s.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        const reversed = [...paths].reverse();
        shards.forEach((s, i) => {
          expect(new Set(pickShard(reversed, { index: i + 1, count: n }, (p) => p))).toEqual(new Set(s));
        });
      },
    ),
  );
});
