import { UsageError } from '../errors.js';

/** One slice of a CI matrix: `index` from 1 to `count`. */
export interface Shard {
  index: number;
  count: number;
}

/** Parses `--shard i/n` (1 ≤ i ≤ n). */
export function parseShard(value: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count)
    throw new UsageError(`--shard ${JSON.stringify(value)}: give i/n with 1 <= i <= n, e.g. --shard 2/3 for the second of three jobs`);
  return { index, count };
}

/**
 * The items of one shard: every item is sorted by its path and dealt out in
 * turn, so the n shards of the same list cover it exactly once each, with
 * sizes that differ by one at most, whatever order the list came in.
 */
export function pickShard<T>(items: readonly T[], shard: Shard | undefined, pathOf: (item: T) => string): T[] {
  if (!shard || shard.count === 1) return [...items];
  const sorted = [...items].map((item) => ({ item, path: pathOf(item) })).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const mine = new Set(sorted.filter((_, i) => i % shard.count === shard.index - 1).map((x) => x.item));
  // Kept in the caller's order: manifest order matters to the reader.
  return items.filter((item) => mine.has(item));
}
