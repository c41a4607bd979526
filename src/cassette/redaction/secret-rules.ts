import { type Allowlist, gitleaks, type Rule } from './gitleaks-catalogue.js';
import { isEchoedIdentifier, isPasswordName, isSecretAssignmentName, MIN_CREDENTIAL_LENGTH } from './secret-names.js';

/**
 * Credential shapes come from gitleaks' maintained rule set (vendored data, MIT,
 * `vendor/gitleaks/`), read as gitleaks reads it: a keyword prefilter, the
 * secret group, a minimum entropy, global and per-rule allowlists. A few rules
 * of our own cover what that set leaves out; each has a test.
 */
export const GITLEAKS_VERSION = 'v8.30.1';

/** A secret found in a piece of text: where it sits and which rule found it. */
export interface SecretFinding {
  kind: string;
  value: string;
  start: number;
  end: number;
}

/**
 * A `name = value` match whose name is secret and whose value could be a credential: the rule a save applies to a
 * JSON field (decision 0016), so that a scan of the text agrees with the save.
 */
const JSON_ESCAPE = /\\(?:u[0-9a-fA-F]{4}|.)/g;
const assignmentAt = (name: number, value: number) => (m: RegExpExecArray) => {
  const key = m[name] ?? '';
  // Measured as the value reads once a JSON string's escapes are undone (`\\(` is one character), as a save measures it.
  const length = (m[value] ?? '').replace(JSON_ESCAPE, '.').length;
  // What stands between the name and the value: `=` or `: `, quotes around the name when it is JSON.
  const separator = m[0].slice(key.length, m[0].length - (m[value] ?? '').length);
  return length >= 6 && isSecretAssignmentName(key, separator) && (isPasswordName(key) || length >= MIN_CREDENTIAL_LENGTH);
};

/**
 * What we ask of a gitleaks rule's match beyond its pattern. `generic-api-key` takes any long value after a name
 * with `token` in it; an identifier a client sends back (`nextPageToken`, `progressToken`) is none (decision 0016).
 */
const ACCEPT: Record<string, (m: RegExpExecArray) => boolean> = {
  'generic-api-key': (m) => !isEchoedIdentifier(/^[\w.-]*/.exec(m[0])?.[0] ?? ''),
};

/** What gitleaks' set does not cover: each found in traffic we record, each with a test. */
const OWN_RULES: Rule[] = [
  // gitleaks wants 17 characters after `ey` in each part; short JWTs are still JWTs.
  { kind: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/dg, keywords: ['eyj'], allowlists: [] },
  // OpenAI-style keys of any vendor: gitleaks knows only OpenAI's own with its T3BlbkFJ marker.
  { kind: 'api-key', re: /\bsk-[A-Za-z0-9_-]{16,}/dg, keywords: ['sk-'], allowlists: [] },
  // An AWS access key id of any letters and digits: gitleaks takes only the base32 ones real ids use, so a test's
  // made-up key, or one a tool mangled, would pass (reported upstream: vendor/gitleaks/UPSTREAM.md).
  // Only those gitleaks' base32 pattern passes (a 0, 1, 8 or 9 in them): the others keep its entropy and allowlist.
  {
    kind: 'aws-access-token',
    re: /\b(?:AKIA|ASIA|ABIA|ACCA)(?=[A-Z0-9]{0,15}[0189])[A-Z0-9]{16}\b/dg,
    keywords: ['akia', 'asia', 'abia', 'acca'],
    allowlists: [],
  },
  // A bearer token in free text, in any case (`bearer abc…`).
  { kind: 'bearer', re: /\bbearer\s+([A-Za-z0-9._~+/-]{12,}=*)/dgi, keywords: ['bearer'], allowlists: [] },
  // The password of a URL's user info: postgres://user:pw@host.
  {
    kind: 'url-credentials',
    re: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:@/?#"'<>]{1,100}:([^\s@/?#"'<>]{1,200})@/dgi,
    keywords: ['://'],
    allowlists: [],
  },
  // `name=value`, `name: value` in text, form bodies, fragments (`#access_token=…`) for a secret-sounding name.
  {
    kind: 'secret-assignment',
    // In a line of JSON, brackets around the value are structure: `"password": [[]]}` holds no password, and
    // `"pw": null}]` holds `null`. So a value neither opens nor ends with a bracket (its length: `assignmentAt`).
    re: /(?<![A-Za-z0-9_])([A-Za-z][A-Za-z0-9_.-]{1,60})["']?\s{0,3}[=:]\s{0,3}["']?([^\s"'&;,#<>[{](?:[^\s"'&;,#<>]*[^\s"'&;,#<>\]}])?)/dg,
    keywords: ['token', 'secret', 'passw', 'key', 'sig', 'auth', 'credential', 'session', 'cookie', 'pwd', 'grant', 'passphrase'],
    secretGroup: 2,
    allowlists: [],
    accept: assignmentAt(1, 2),
  },
  // A multipart part whose name is secret: its content is the secret.
  {
    kind: 'form-field',
    re: /name="([^"\r\n]+)"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*?\r?\n([^\r\n]+)/dg,
    keywords: ['name="'],
    secretGroup: 2,
    allowlists: [],
    accept: assignmentAt(1, 2),
  },
];

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Trie {
  end: boolean;
  next: Map<string, Trie>;
}

/**
 * One pattern for many words, shared prefixes factored out (`a(?:dafruit|irtable)`):
 * the regex engine then tests a position in a few steps, not once per word.
 * Greedy, so at each position the longest word matches.
 */
function trieSource(words: readonly string[]): string {
  const root: Trie = { end: false, next: new Map() };
  for (const w of words) {
    let node = root;
    for (const ch of w) {
      let child = node.next.get(ch);
      if (!child) node.next.set(ch, (child = { end: false, next: new Map() }));
      node = child;
    }
    node.end = true;
  }
  const source = (node: Trie): string => {
    const branches = [...node.next].map(([ch, child]) => escapeRegExp(ch) + source(child));
    if (branches.length === 0) return '';
    const alt = branches.length === 1 ? (branches[0] as string) : `(?:${branches.join('|')})`;
    return node.end ? `(?:${alt})?` : alt;
  };
  return source(root);
}

/** Shannon entropy in bits per character, as gitleaks computes it. */
export function shannonEntropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

function allowed(lists: Allowlist[], secret: string, match: string, line: string): boolean {
  for (const a of lists) {
    const target = a.target === 'match' ? match : a.target === 'line' ? line : secret;
    const byRegex = a.regexes.some((re) => re.test(target));
    const lower = secret.toLowerCase();
    const byStopword = a.stopwords.some((w) => lower.includes(w));
    if (a.and) {
      if (a.undecidable) continue;
      const checks = [...(a.regexes.length ? [byRegex] : []), ...(a.stopwords.length ? [byStopword] : [])];
      if (checks.length && checks.every(Boolean)) return true;
    } else if (byRegex || byStopword) return true;
  }
  return false;
}

/**
 * A placeholder in any spelling a save writes or a server echoes it in: as is, percent-encoded in a path or query
 * (once or more: `%3C`, `%253C`), JSON-escaped (`\u003c`, as Go's encoder writes `<`).
 */
const PLACEHOLDER_INSIDE = /(?:<|%(?:25)*3c|\\u003c)redacted(?::|%(?:25)*3a)[a-z0-9_.-]+(?:>|%(?:25)*3e|\\u003e)/i;

/** Findings in `text`, left to right, overlapping ones merged into one span under the kind of the one starting first (the widest, at a tie). */
export function mergeOverlapping(found: SecretFinding[], text: string): SecretFinding[] {
  if (found.length < 2) return found;
  // Widest first at each start, then drop whatever a kept finding covers.
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretFinding[] = [];
  for (const f of found) {
    const last = merged.at(-1);
    if (last && f.start < last.end) {
      if (f.end > last.end) merged[merged.length - 1] = { ...last, end: f.end, value: text.slice(last.start, f.end) };
    } else merged.push(f);
  }
  return merged;
}

/** A set of secret rules: gitleaks' own, ours, and the patterns of a configuration. */
export interface SecretRuleSet {
  /** Every secret in the text, left to right, overlapping findings merged into the widest. */
  find(text: string): SecretFinding[];
  /** Rules in the set, and gitleaks rules left out because their pattern could not be translated. */
  readonly size: number;
  readonly skipped: readonly string[];
}

// Building a rule set compiles a few hundred expressions (about 5 ms): every
// engine, proxy and scan with the same patterns shares one (`find` keeps no state between calls).
const built = new Map<string, SecretRuleSet>();

/** The rule set, with `patterns` (from the config) as extra rules named `pattern-1`, `pattern-2`, ...; built once per list. */
export function secretRules(patterns: readonly string[] = []): SecretRuleSet {
  const key = JSON.stringify(patterns);
  let set = built.get(key);
  if (!set) {
    set = buildSecretRules(patterns);
    if (built.size < 64) built.set(key, set);
  }
  return set;
}

function buildSecretRules(patterns: readonly string[]): SecretRuleSet {
  const { rules: gl, global, skipped } = gitleaks(ACCEPT);
  const configured: Rule[] = patterns.map((p, i) => ({ kind: `pattern-${i + 1}`, re: new RegExp(p, 'dg'), keywords: [], allowlists: [] }));
  const rules = [...OWN_RULES, ...gl, ...configured];
  const always = rules.filter((r) => r.keywords.length === 0);
  const byKeyword = new Map<string, Rule[]>();
  for (const r of rules) for (const k of r.keywords) byKeyword.set(k, [...(byKeyword.get(k) ?? []), r]);
  // One pass over the text finds every keyword: longest first, so at each position the longest wins and the
  // shorter ones it contains come with it; stepping one character on finds those starting later.
  const keywords = [...byKeyword.keys()].sort((a, b) => b.length - a.length);
  const within = new Map(keywords.map((k) => [k, keywords.filter((j) => k.includes(j))]));
  const anyKeyword = keywords.length ? new RegExp(trieSource(keywords), 'g') : /(?!)/g;

  function candidates(text: string): Set<Rule> {
    const out = new Set<Rule>(always);
    // Keywords are lower case; lower-casing the text once is cheaper than a case-insensitive search.
    const lower = text.toLowerCase();
    anyKeyword.lastIndex = 0;
    for (let m = anyKeyword.exec(lower); m; m = anyKeyword.exec(lower)) {
      for (const k of within.get(m[0]) ?? []) for (const r of byKeyword.get(k) as Rule[]) out.add(r);
      anyKeyword.lastIndex = m.index + 1;
    }
    return out;
  }

  function lineAround(text: string, start: number, end: number): string {
    const from = text.lastIndexOf('\n', start - 1) + 1;
    const to = text.indexOf('\n', end);
    return text.slice(from, to === -1 ? text.length : to);
  }

  function findWith(rule: Rule, text: string, out: SecretFinding[]): void {
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(text); m; m = rule.re.exec(text)) {
      if (m[0].length === 0) {
        rule.re.lastIndex++;
        continue;
      }
      if (rule.accept && !rule.accept(m)) continue;
      let group = rule.secretGroup ?? 0;
      if (rule.secretGroup === undefined) {
        group = 0;
        for (let g = 1; g < m.length; g++)
          if (m[g]) {
            group = g;
            break;
          }
      }
      const span = m.indices?.[group];
      const value = m[group];
      if (!span || !value) continue;
      // Placeholders already written, or text around them, are not secrets.
      if (PLACEHOLDER_INSIDE.test(value)) continue;
      if (rule.entropy !== undefined && shannonEntropy(value) <= rule.entropy) continue;
      const line = lineAround(text, span[0], span[1]);
      if (allowed(global, value, m[0], line) || allowed(rule.allowlists, value, m[0], line)) continue;
      out.push({ kind: rule.kind, value, start: span[0], end: span[1] });
    }
  }

  return {
    size: rules.length,
    skipped,
    find(text) {
      const found: SecretFinding[] = [];
      for (const r of candidates(text)) findWith(r, text, found);
      return mergeOverlapping(found, text);
    },
  };
}
