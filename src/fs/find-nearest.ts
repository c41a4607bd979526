import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The nearest of `names` from `from` up to the repository root (the folder holding `.git`), at once. */
export function findNearestSync(names: readonly string[], from: string): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    for (const name of names) {
      const candidate = join(dir, name);
      if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) return candidate;
    }
    const atRoot = statSync(join(dir, '.git'), { throwIfNoEntry: false }) !== undefined;
    if (atRoot || dirname(dir) === dir) return undefined;
  }
}
