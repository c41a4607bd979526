import type { Cassette } from '../cassette/index.js';
import { choosePacks, type Pack, resolvePackSync, resolvePacksSync } from '../contracts/index.js';
import { FuzzError } from './errors.js';

/**
 * The packs a cassette is fuzzed against: those given, else those it names,
 * else (a plain `bench proxy` recording) those its traffic fits, as `bench
 * verify` chooses them; a `FuzzError` when nothing fits.
 */
export function packsFor(cassette: Cassette, name: string, given?: readonly (string | Pack)[]): Pack[] {
  const named = given ?? cassette.meta.packs;
  if (named && named.length > 0) return named.flatMap(resolvePacksSync);
  const chosen = choosePacks(cassette).chosen.map((c) => resolvePackSync(c.pack));
  if (chosen.length > 0) return chosen;
  throw new FuzzError(
    'no_packs',
    `${name} names no contract pack (meta.packs) and none fits its traffic; pass packs so the fuzzer knows which variations are legal`,
  );
}
