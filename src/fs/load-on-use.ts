import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A dependency loaded the first time it is used, synchronously (through its
 * CommonJS build): a parser only a rare path needs (a hand-edited file, an
 * error's line number, the secret rules) costs every command's start 8-26 ms
 * when imported up front.
 */
export function loadOnUse<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(specifier) as T;
    return loaded;
  };
}
