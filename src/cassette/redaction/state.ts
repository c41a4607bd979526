import { MIN_GLOBAL, type RedactionConfig, type RedactorOptions } from './config.js';
import { ShapeFinder } from './finder.js';
import { Pass } from './pass.js';
import { type SecrecyRules, secrecyRules } from './secrecy.js';
import { secretSpellings } from './secret-encodings.js';

/** What every step of one redactor shares: which names are secret, the rules, the pass under way, and its caches. */
export interface Redaction {
  secrecy: SecrecyRules;
  finder: ShapeFinder;
  pass: Pass;
  /** Set while `findSecrets` looks: it reports every leaf a scrub replaces, the deeper ones too. */
  everyNamedLeaf: boolean;
  /** Every encoding of a secret value, worked out once: a recording's secrets are listed again whenever it finds a new one. */
  spellingsOf(value: string): string[];
  /** The byte spelling of each scrub list, made once per list (and again once a grown list grew). */
  byteLists: WeakMap<[string, string][], { length: number; bytes: [string, string][] }>;
}

/** A redactor's shared state for a configuration. */
export function redaction(config: RedactionConfig, options: RedactorOptions): Redaction {
  const finder = new ShapeFinder(config.patterns);
  const spellings = new Map<string, string[]>();
  const spellingsOf = (value: string) => {
    let known = spellings.get(value);
    if (!known) {
      known = secretSpellings(value);
      if (spellings.size >= 50_000) spellings.clear();
      spellings.set(value, known);
    }
    return known;
  };
  return {
    secrecy: secrecyRules(config, options),
    finder,
    pass: new Pass(finder),
    everyNamedLeaf: false,
    spellingsOf,
    byteLists: new WeakMap(),
  };
}

/** Sorted for scrubbing: every spelling of every secret, longest first, so a secret inside another is never split. */
export function scrubList(r: Redaction, all: Map<string, string>): [string, string][] {
  const list = new Map<string, string>();
  for (const [value, name] of all) {
    if (value.length < MIN_GLOBAL) continue;
    list.set(value, name);
    for (const spelling of r.spellingsOf(value)) if (!list.has(spelling)) list.set(spelling, name);
  }
  return [...list].sort((a, b) => b[0].length - a[0].length);
}
