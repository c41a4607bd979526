import { type Pack, type Rule, type TurnStart, verifyCassette } from '../contracts/index.js';
import type { Candidate } from './candidate.js';
import type { Recording } from './recordings.js';

/** A candidate's rule in a pack the checker can run: every candidate named by its place, so results map back. */
function trialPack(candidates: readonly Candidate[], turnStarts: TurnStart[], routes: RegExp[] | undefined, session?: string): Pack {
  return {
    name: 'bench-infer-trial',
    description: '',
    turnStarts,
    payloads: {},
    openVocabulary: true,
    rules: candidates.map((c, i) => ({ ...c.rule, name: `c${i}` })),
    ...(routes ? { routes } : {}),
    ...(session ? { session: { header: session } } : {}),
  };
}

/** The candidates the real checker finds no violation of in any recording: what `bench verify` will also accept. */
export function holdingCandidates(
  candidates: readonly Candidate[],
  recordings: readonly Recording[],
  turnStarts: TurnStart[],
  routes: RegExp[] | undefined,
  session?: string,
): Candidate[] {
  const pack = trialPack(candidates, turnStarts, routes, session);
  const broken = new Set<string>();
  for (const r of recordings)
    for (const result of verifyCassette(r.cassette, r.name, [pack]).rules) if (result.violations.length > 0) broken.add(result.rule);
  return candidates.filter((_, i) => !broken.has(`c${i}`));
}

/**
 * Drops rules the others imply, so the file says each thing once: `precedes(a, c)` when `a` comes before some
 * `b` that comes before every `c`; a precedes that a first event or a pairing already says.
 */
export function withoutImplied(candidates: readonly Candidate[]): Candidate[] {
  const rules = candidates.map((c) => c.rule);
  // The type every stream opens with (a kind of it, `chunk[role=assistant]`, is that type too): it precedes everything.
  const firsts = new Set(
    rules.flatMap((r) => (r.kind === 'firstEvent' && !r.event.includes('|') ? [r.event.split('[')[0] as string] : [])),
  );
  const before = new Set(
    rules.flatMap((r) => (r.kind === 'precedes' && r.by === undefined ? [`${r.scope} ${r.earlier}\n${r.later}`] : [])),
  );
  const paired = new Set(rules.flatMap((r) => (r.kind === 'pairedBy' ? r.end.map((e) => `${r.start}\n${e}`) : [])));
  const types = [...new Set(rules.flatMap((r) => (r.kind === 'precedes' ? [r.earlier, r.later] : [])))];
  // A keyed precedes says more than the plain one of the same types: its later events all carry the key.
  const keyed = new Set(
    rules.flatMap((r) => (r.kind === 'precedes' && r.by !== undefined ? r.later.split('|').map((l) => `${r.earlier}\n${l}`) : [])),
  );
  const terminalOnly = new Set(rules.flatMap((r) => (r.kind === 'terminal' && r.of.length === 1 ? [`${r.scope} ${r.of[0]}`] : [])));
  return candidates.filter(({ rule: r }) => {
    // One terminal event per scope already says there is exactly one.
    if (r.kind === 'exactlyOne' && r.of.length === 1 && terminalOnly.has(`${r.scope} ${r.of[0]}`)) return false;
    if (r.kind !== 'precedes' || r.by !== undefined) return true;
    if (r.scope === 'stream' && firsts.has(r.earlier)) return false;
    if (paired.has(`${r.earlier}\n${r.later}`) || (r.scope === 'stream' && keyed.has(`${r.earlier}\n${r.later}`))) return false;
    // a -> b -> c makes a -> c say nothing new.
    return !types.some(
      (b) => b !== r.earlier && b !== r.later && before.has(`${r.scope} ${r.earlier}\n${b}`) && before.has(`${r.scope} ${b}\n${r.later}`),
    );
  });
}

/** Turn-scoped rules that say what a stream-scoped one already says of every stream (streams without turns are whole). */
export function withoutTurnEchoes(candidates: readonly Candidate[]): Candidate[] {
  const said = new Set(
    candidates.filter((c) => c.rule.scope === 'stream').map((c) => JSON.stringify({ ...c.rule, scope: '', description: '' })),
  );
  return candidates.filter((c) => c.rule.scope === 'stream' || !said.has(JSON.stringify({ ...c.rule, scope: '', description: '' })));
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

/** A short name from what a rule is about: `first-run-started`, `tool-call-start-before-tool-call-end`. */
function nameOf(rule: Rule): string {
  const turn = rule.scope === 'turn' ? '-per-turn' : '';
  switch (rule.kind) {
    case 'firstEvent':
      return `first-${rule.event}`;
    case 'terminal':
      return `ends-with-${rule.of.join('-or-')}${turn}`;
    case 'exactlyOne':
      return `one-${rule.of.join('-or-')}${turn}`;
    case 'atMostOne':
      return `at-most-one-${rule.of}${rule.by ? '-by-key' : turn}`;
    case 'eventually':
      return `eventually-${rule.event.split('|')[0]}${rule.by ? '-by-key' : turn}`;
    case 'precedes':
      return `${rule.later.split('|').length > 1 ? 'content' : rule.later}-after-${rule.earlier}${rule.by ? '-by-key' : turn}`;
    case 'pairedBy':
      return `${rule.start}-closed-by-${rule.end.join('-or-')}`;
    case 'never':
      return `nothing-after-${rule.after}${rule.by ? '-by-key' : turn}`;
    case 'assembles':
      return `${rule.delta}-adds-up-to-${rule.whole}`;
    default:
      return `${rule.kind}-${'field' in rule ? rule.field : ''}`;
  }
}

/** Names each rule after what it says, unique within the pack. */
export function named(candidates: readonly Candidate[]): Candidate[] {
  const used = new Map<string, number>();
  return candidates.map((c) => {
    const base = slug(nameOf(c.rule)).slice(0, 80).replace(/-+$/, '') || c.rule.kind.toLowerCase();
    const n = (used.get(base) ?? 0) + 1;
    used.set(base, n);
    return { ...c, rule: { ...c.rule, name: n === 1 ? base : `${base}-${n}` } };
  });
}
