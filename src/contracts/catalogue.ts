import { UsageError } from '../errors.js';
import type { Pack } from './pack.js';

/**
 * The packs a cassette may name in `meta.packs`, and that `bench verify` may
 * choose by traffic. Families add theirs when the registry loads them (as
 * plug-ins register with Polly), so this module names no family.
 */
const catalogue = new Map<string, Pack>();

/** Adds packs to the catalogue; a second pack under a name already taken by another object is refused. */
export function registerPacks(packs: readonly Pack[]): void {
  for (const pack of packs) {
    const known = catalogue.get(pack.name);
    if (known && known !== pack)
      throw new UsageError(`pack ${JSON.stringify(pack.name)} is registered twice; give each family's packs names of their own`);
    catalogue.set(pack.name, pack);
  }
}

/** Every registered pack, in the order they were registered. */
export function registeredPacks(): readonly Pack[] {
  return [...catalogue.values()];
}

/** A registered pack by name; an unknown name lists the known ones. */
export function findPack(name: string): Pack {
  const pack = catalogue.get(name);
  if (!pack)
    throw new UsageError(
      `unknown pack ${JSON.stringify(name)}; known packs: ${[...catalogue.keys()].join(', ') || 'none (load a family first)'}`,
    );
  return pack;
}
