import { readFileSync } from 'node:fs';
import { loadOnUse } from '../../fs/load-on-use.js';
import { goRegExp } from './go-regexp.js';

// gitleaks' maintained rule set (vendored data, MIT, `vendor/gitleaks/`), read as gitleaks reads it: a keyword
// prefilter, the secret group, a minimum entropy, global and per-rule allowlists.

export interface Allowlist {
  target: 'secret' | 'match' | 'line';
  and: boolean;
  regexes: RegExp[];
  stopwords: string[];
  /** An allowlist that also names paths or commits cannot be decided on traffic: with AND it never allows. */
  undecidable: boolean;
}

export interface Rule {
  kind: string;
  re: RegExp;
  keywords: string[];
  secretGroup?: number;
  entropy?: number;
  allowlists: Allowlist[];
  /** Our own rules may ask more of a match than a pattern can say. */
  accept?: (m: RegExpExecArray) => boolean;
}

interface GitleaksAllowlist {
  regexTarget?: string;
  condition?: string;
  regexes?: string[];
  stopwords?: string[];
  paths?: string[];
  commits?: string[];
}
interface GitleaksRule {
  id: string;
  regex?: string;
  keywords?: string[];
  secretGroup?: number;
  entropy?: number;
  allowlists?: GitleaksAllowlist[];
}

function allowlistOf(a: GitleaksAllowlist): Allowlist {
  const target = a.regexTarget === 'match' || a.regexTarget === 'line' ? a.regexTarget : 'secret';
  return {
    target,
    and: a.condition === 'AND',
    regexes: (a.regexes ?? []).map((r) => {
      const re = goRegExp(r);
      return new RegExp(re.source, re.flags.replace('g', ''));
    }),
    stopwords: (a.stopwords ?? []).map((s) => s.toLowerCase()),
    undecidable: (a.paths?.length ?? 0) + (a.commits?.length ?? 0) > 0,
  };
}

export interface Catalogue {
  rules: Rule[];
  global: Allowlist[];
  skipped: string[];
}

let catalogue: Catalogue | undefined;
// Read once per process, and only by a command that redacts: `bench verify` never pays for the TOML parser.
const toml = loadOnUse<typeof import('smol-toml')>('smol-toml');

/**
 * The vendored gitleaks rules, read once; a rule whose pattern cannot be translated is listed in `skipped`.
 * `accept` asks more of a rule's match than its pattern says, by rule id.
 */
export function gitleaks(accept: Readonly<Record<string, (m: RegExpExecArray) => boolean>>): Catalogue {
  if (catalogue) return catalogue;
  const file = new URL('../../../vendor/gitleaks/gitleaks.toml', import.meta.url);
  const doc = toml().parse(readFileSync(file, 'utf8')) as unknown as { rules: GitleaksRule[]; allowlist?: GitleaksAllowlist };
  const rules: Rule[] = [];
  const skipped: string[] = [];
  for (const r of doc.rules) {
    // Rules about file names (pkcs12-file) have no pattern: traffic has no file names.
    if (!r.regex) continue;
    try {
      const more = accept[r.id];
      rules.push({
        kind: r.id,
        re: new RegExp(goRegExp(r.regex).source, 'gd'),
        ...(more ? { accept: more } : {}),
        keywords: (r.keywords ?? []).map((k) => k.toLowerCase()),
        ...(r.secretGroup !== undefined ? { secretGroup: r.secretGroup } : {}),
        ...(r.entropy !== undefined ? { entropy: r.entropy } : {}),
        allowlists: (r.allowlists ?? []).map(allowlistOf),
      });
    } catch {
      skipped.push(r.id);
    }
  }
  catalogue = { rules, global: doc.allowlist ? [allowlistOf(doc.allowlist)] : [], skipped };
  return catalogue;
}
