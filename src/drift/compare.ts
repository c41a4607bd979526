import type { DriftNoise } from '../families/index.js';
import type { Severity } from './config.js';
import type { Profile } from './profile.js';
import { canonicalTurn, diffTurns, type SequenceNoise } from './sequence.js';
import type { JsonType, Occurrences, Shape, Values } from './shape.js';

export const HEADINGS = [
  'vocabulary',
  'sequence',
  'ordering',
  'values',
  'payload shape',
  'status codes',
  'stream ends',
  'contract',
  'verdict',
] as const;
export type Heading = (typeof HEADINGS)[number];

/** One thing that moved between baseline and candidate. */
export interface Finding {
  heading: Heading;
  severity: Severity;
  /** The harness (or folder) it concerns. */
  scope: string;
  subject: string;
  message: string;
  /** Old and new event sequences around an ordering change. */
  excerpt?: string[];
  /** The probes (cassette names) it was seen in, when it concerns some and not the whole harness. */
  probes?: string[];
}

const types = (s: Set<JsonType>) => [...s].filter((t) => t !== 'null').sort();
const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
/** The path itself, or a field or element under it. */
const within = (path: string, roots: readonly string[]) =>
  roots.some((r) => path === r || path.startsWith(`${r}.`) || path.startsWith(`${r}[]`));

function compareShapes(scope: string, subject: string, base: Shape, cand: Shape, out: Finding[], raced: readonly string[]): void {
  const removed: string[] = [];
  for (const [path, baseTypes] of base) {
    if (within(path, raced) || within(path, removed)) continue;
    const candTypes = cand.get(path);
    if (!candTypes) {
      removed.push(path);
      out.push({ heading: 'payload shape', severity: 'breaking', scope, subject, message: `field ${path} removed` });
      continue;
    }
    const b = types(baseTypes);
    const c = types(candTypes);
    if (!same(b, c) && c.length > 0 && b.length > 0) {
      out.push({
        heading: 'payload shape',
        severity: 'breaking',
        scope,
        subject,
        message: `field ${path} changed type: ${b.join('|')} -> ${c.join('|')}`,
      });
    } else if (c.length === 0 && b.length > 0) {
      out.push({
        heading: 'payload shape',
        severity: 'breaking',
        scope,
        subject,
        message: `field ${path} is now always null (was ${b.join('|')})`,
      });
    } else if (candTypes.has('null') && !baseTypes.has('null')) {
      out.push({ heading: 'payload shape', severity: 'notable', scope, subject, message: `field ${path} is now nullable` });
    }
  }
  const added: string[] = [];
  for (const path of cand.keys()) {
    if (base.has(path) || within(path, raced) || within(path, added)) continue;
    added.push(path);
    out.push({ heading: 'payload shape', severity: 'info', scope, subject, message: `field ${path} added` });
  }
}

/** A field in every baseline occurrence and only in some candidate ones: merged shapes cannot show it. */
function comparePresence(
  scope: string,
  subject: string,
  base: Occurrences,
  cand: Occurrences,
  out: Finding[],
  raced: readonly string[],
): void {
  // One baseline occurrence is no evidence that a field is always there.
  if (base.count < 2) return;
  const reported: string[] = [];
  for (const [path, n] of base.paths) {
    if (n !== base.count || within(path, reported) || within(path, raced)) continue;
    // Under an array, an element count says nothing of presence.
    if (path.includes('[]')) continue;
    const c = cand.paths.get(path) ?? 0;
    if (c === 0 || c === cand.count) continue;
    reported.push(path);
    out.push({
      heading: 'payload shape',
      severity: 'breaking',
      scope,
      subject,
      message: `field ${path} missing from ${cand.count - c} of ${cand.count} occurrences (was in all ${base.count})`,
    });
  }
}

/** Field names that hold a vocabulary by what they are called: a single recorded value is already one of a set. */
const VOCABULARY_NAME =
  /^(status|state|type|kind|role|phase|mode|object|reason|finish_?reason|stop_?reason|level|severity|decision|outcome|action)$/i;

/**
 * A closed vocabulary: short token-like values (no ids, text or times) under a
 * name that says so (`status`, `type`, `role`, `finish_reason`). Names decide,
 * not repetition: a session's random slug repeats on every update of it.
 */
function closedVocabulary(path: string, v: { values: Map<string, number>; open: boolean }): boolean {
  if (v.open || v.values.size === 0 || v.values.size > 8) return false;
  let total = 0;
  for (const [value, n] of v.values) {
    if (!/^[A-Za-z][A-Za-z0-9_.:/-]{0,39}$/.test(value) || (value.match(/\d/g)?.length ?? 0) > 2) return false;
    total += n;
  }
  const name = path.slice(path.lastIndexOf('.') + 1).replace(/\[\]$/, '');
  // Repetition alone is no sign of a vocabulary: one session's random slug repeats on every update of it.
  return VOCABULARY_NAME.test(name) && total > 0;
}

function compareValues(scope: string, subject: string, base: Values, cand: Values, out: Finding[], raced: readonly string[]): void {
  for (const [path, b] of base) {
    if (within(path, raced) || !closedVocabulary(path, b)) continue;
    const c = cand.get(path);
    if (!c) continue;
    const was = [...b.values.keys()].sort();
    const now = c.open ? [] : [...c.values.keys()].sort();
    const fresh = now.filter((x) => !b.values.has(x));
    if (c.open) {
      out.push({
        heading: 'values',
        severity: 'breaking',
        scope,
        subject,
        message: `field ${path} is no longer a closed set (was ${was.join(', ')})`,
      });
      continue;
    }
    if (fresh.length === 0) continue;
    const gone = was.filter((x) => !c.values.has(x));
    out.push({
      heading: 'values',
      severity: 'breaking',
      scope,
      subject,
      message:
        gone.length > 0
          ? `field ${path}: ${gone.join(', ')} -> ${fresh.join(', ')} (values were ${was.join(', ')})`
          : `field ${path} has new value ${fresh.join(', ')} (values were ${was.join(', ')})`,
    });
  }
}

/** A sequence with runs folded (`delta×20`), for excerpts. */
export function foldRuns(seq: string[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < seq.length) {
    let j = i;
    while (j < seq.length && seq[j] === seq[i]) j++;
    out.push(j - i > 1 ? `${seq[i]}×${j - i}` : (seq[i] as string));
    i = j;
  }
  return out.join(', ');
}

const probeName = (file: string) => file.replace(/\.ya?ml$/, '');

/** A list of probes, short enough to read at a glance. */
function probeList(names: string[]): string {
  const shown = names.slice(0, 4).map(probeName).join(', ');
  return names.length > 4 ? `${shown} and ${names.length - 4} more` : shown;
}

/** What a server leaves to chance (its races): never a finding. A suite declares it (`driftNoise`). */
export type Noise = DriftNoise;

/**
 * Types whose runs are free: deltas (`response.output_text.delta`,
 * `item/agentMessage/delta`) come as many times as the text takes, which is
 * the model's business, not the protocol's. Any other repeat counts: a second
 * `response.output_item.done` is a change even where items come in a row.
 */
function runTypes(profile: Profile, declared: readonly string[]): Set<string> {
  const runs = new Set(declared);
  for (const turns of profile.turns.values()) for (const turn of turns) for (const t of turn) if (/delta$/i.test(t)) runs.add(t);
  return runs;
}

/** Types that came at most once in every baseline turn that had them: a second one is a duplicate. */
function onceTypes(profile: Profile): Set<string> {
  const seen = new Set<string>();
  const many = new Set<string>();
  for (const turns of profile.turns.values())
    for (const turn of turns) {
      const counts = new Map<string, number>();
      for (const t of turn) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const [t, n] of counts) (n > 1 ? many : seen).add(t);
    }
  return new Set([...seen].filter((t) => !many.has(t)));
}

const describeAfter = (after: string | undefined) => (after ? `after ${after}` : 'first in the turn');

/** Every turn of every probe aligned with its baseline: extra, missing and moved occurrences, one finding per change. */
function compareSequences(
  scope: string,
  base: Profile,
  cand: Profile,
  noise: SequenceNoise,
  unplaced: Readonly<Record<string, readonly string[]>>,
  vocabulary: Set<string>,
  out: Finding[],
): void {
  const once = onceTypes(base);
  const found = new Map<string, { finding: Finding; probes: string[] }>();
  const add = (key: string, probe: string, make: () => Finding) => {
    const entry = found.get(key) ?? { finding: make(), probes: [] };
    if (!entry.probes.includes(probe)) entry.probes.push(probe);
    found.set(key, entry);
  };
  for (const [probe, baseTurns] of base.turns) {
    const candTurns = cand.turns.get(probe);
    if (!candTurns) continue;
    if (candTurns.length !== baseTurns.length)
      add(`turns ${probe}`, probe, () => ({
        heading: 'sequence',
        severity: 'breaking',
        scope,
        subject: probeName(probe),
        message: `${baseTurns.length} turns -> ${candTurns.length}`,
      }));
    const loose = unplaced[probeName(probe)] ?? [];
    const here: SequenceNoise = loose.length ? { ...noise, sometimes: new Set([...noise.sometimes, ...loose]) } : noise;
    baseTurns.forEach((baseTurn, k) => {
      const candTurn = candTurns[k];
      if (!candTurn) return;
      const b = canonicalTurn(baseTurn, here);
      const c = canonicalTurn(candTurn, here);
      const excerpt = [`- ${foldRuns(b)}`, `+ ${foldRuns(c)}`];
      for (const e of diffTurns(b, c)) {
        // A type that came or went altogether is a vocabulary finding already.
        if (vocabulary.has(e.type)) continue;
        if (e.op === 'moved')
          add(`moved ${e.type}`, probe, () => ({
            heading: 'ordering',
            severity: 'breaking',
            scope,
            subject: e.type,
            message: `${e.type} moved: it came ${describeAfter(e.wasAfter)}, now ${describeAfter(e.nowAfter)}`,
            excerpt,
          }));
        else if (e.op === 'removed')
          add(`removed ${e.type}`, probe, () => ({
            heading: 'sequence',
            severity: 'breaking',
            scope,
            subject: e.type,
            message: `${e.type} ${describeAfter(e.after)} is no longer sent`,
            excerpt,
          }));
        else
          add(`inserted ${e.type}`, probe, () => ({
            heading: 'sequence',
            severity: once.has(e.type) ? 'breaking' : 'notable',
            scope,
            subject: e.type,
            message: once.has(e.type)
              ? `${e.type} is sent twice in a turn (again ${describeAfter(e.after)}); it used to come once`
              : `an extra ${e.type} ${describeAfter(e.after)}`,
            excerpt,
          }));
      }
    });
  }
  for (const { finding, probes } of found.values())
    out.push({ ...finding, subject: `${finding.subject} in ${probeList(probes)}`, probes: probes.map(probeName) });
}

/** How streams ended per route, and whether they ended with the sentinel. */
function compareStreamEnds(scope: string, base: Profile, cand: Profile, out: Finding[]): void {
  for (const [route, b] of base.routes) {
    const c = cand.routes.get(route);
    if (!c || (b.ends.size === 0 && c.ends.size === 0)) continue;
    const was = [...b.ends].sort();
    const now = [...c.ends].sort();
    if (!same(was, now))
      out.push({
        heading: 'stream ends',
        severity: 'breaking',
        scope,
        subject: route,
        message: `streams end ${was.join(', ') || 'never'} -> ${now.join(', ') || 'never'}`,
      });
    if (b.sentinel.with > 0 && b.sentinel.without === 0 && c.sentinel.without > 0)
      out.push({
        heading: 'stream ends',
        severity: 'breaking',
        scope,
        subject: route,
        message: `[DONE] missing from ${c.sentinel.without} of ${c.sentinel.with + c.sentinel.without} streams (it ended every one)`,
      });
  }
}

/** What every comparer reads: the two profiles, the noise, and what the vocabulary and contract comparers share. */
interface Comparison {
  scope: string;
  base: Profile;
  cand: Profile;
  noise: Noise;
  sometimes: Set<string>;
  /** Event types gone from the candidate, and new in it (neither sent only sometimes). */
  gone: string[];
  appeared: string[];
  /** New contract violations, by rule, that are not only on an event type that appeared... */
  newViolations: Map<string, { probes: string[]; types: Set<string> }>;
  /** ...and those that are, by that type: said once, with the type. */
  folded: Map<string, string[]>;
}

type Comparer = (c: Comparison) => Finding[];

function comparison(scope: string, base: Profile, cand: Profile, noise: Noise): Comparison {
  const sometimes = new Set(noise.sometimes);
  const gone = [...base.eventShapes.keys()].filter((t) => !cand.eventShapes.has(t) && !sometimes.has(t));
  const appeared = [...cand.eventShapes.keys()].filter((t) => !base.eventShapes.has(t) && !sometimes.has(t));
  const newViolations = new Map<string, { probes: string[]; types: Set<string> }>();
  for (const [name, rules] of cand.violations) {
    const before = base.violations.get(name) ?? new Map();
    for (const [rule, types] of rules) {
      if (before.has(rule)) continue;
      const v = newViolations.get(rule) ?? { probes: [], types: new Set<string>() };
      v.probes.push(name);
      for (const t of types) v.types.add(t);
      newViolations.set(rule, v);
    }
  }
  // New contract violations on a type that only appeared say the same thing twice: one finding, at the violation's severity.
  const folded = new Map<string, string[]>();
  for (const [rule, v] of newViolations) {
    if (v.types.size === 0 || ![...v.types].every((t) => appeared.includes(t))) continue;
    for (const t of v.types) folded.set(t, [...(folded.get(t) ?? []), rule]);
    newViolations.delete(rule);
  }
  return { scope, base, cand, noise, sometimes, gone, appeared, newViolations, folded };
}

const vocabulary: Comparer = ({ scope, base, cand, gone, appeared, folded }) => [
  ...gone.map((t): Finding => ({ heading: 'vocabulary', severity: 'breaking', scope, subject: t, message: `event type ${t} disappeared` })),
  ...appeared.map((t): Finding => {
    const rules = folded.get(t);
    return {
      heading: 'vocabulary',
      severity: rules ? 'breaking' : 'notable',
      scope,
      subject: t,
      message: rules ? `event type ${t} appeared, and breaks the contract: ${rules.join(', ')}` : `event type ${t} appeared`,
    };
  }),
  ...[...base.routes.keys()]
    .filter((r) => !cand.routes.has(r))
    .map((r): Finding => ({ heading: 'vocabulary', severity: 'breaking', scope, subject: r, message: `route ${r} disappeared` })),
  ...[...cand.routes.keys()]
    .filter((r) => !base.routes.has(r))
    .map((r): Finding => ({ heading: 'vocabulary', severity: 'notable', scope, subject: r, message: `route ${r} appeared` })),
];

const sequences: Comparer = ({ scope, base, cand, noise, sometimes, gone, appeared }) => {
  const out: Finding[] = [];
  const sequenceNoise: SequenceNoise = {
    runs: runTypes(base, noise.runs ?? []),
    unordered: new Set(noise.unordered.flatMap(([a, b]) => [`${a}\u0000${b}`, `${b}\u0000${a}`])),
    sometimes,
  };
  compareSequences(scope, base, cand, sequenceNoise, noise.unplaced ?? {}, new Set([...gone, ...appeared]), out);
  return out;
};

/** Event payloads and route bodies alike: merged shapes, presence per occurrence, closed values. */
const payloads: Comparer = ({ scope, base, cand, noise }) => {
  const out: Finding[] = [];
  for (const [shapes, presence, values] of [
    ['eventShapes', 'eventPresence', 'eventValues'],
    ['routeShapes', 'routePresence', 'routeValues'],
  ] as const) {
    for (const [subject, shape] of base[shapes]) {
      const c = cand[shapes].get(subject);
      if (!c) continue;
      const raced = noise.racedFields?.[subject] ?? [];
      compareShapes(scope, subject, shape, c, out, raced);
      const bp = base[presence].get(subject);
      const cp = cand[presence].get(subject);
      if (bp && cp) comparePresence(scope, subject, bp, cp, out, raced);
      const bv = base[values].get(subject);
      const cv = cand[values].get(subject);
      if (bv && cv) compareValues(scope, subject, bv, cv, out, raced);
    }
  }
  return out;
};

/** Per route: its statuses, its content types, and bodies that became empty. */
const answers: Comparer = ({ scope, base, cand }) => {
  const out: Finding[] = [];
  const finding = (subject: string, message: string): Finding => ({
    heading: 'status codes',
    severity: 'breaking',
    scope,
    subject,
    message,
  });
  for (const [r, b] of base.routes) {
    const c = cand.routes.get(r);
    if (!c) continue;
    const bs = [...b.statuses].sort().map(String);
    const cs = [...c.statuses].sort().map(String);
    if (!same(bs, cs)) out.push(finding(r, `status ${bs.join(', ')} -> ${cs.join(', ')}`));
    const bt = [...b.contentTypes].sort();
    const ct = [...c.contentTypes].sort();
    if (!same(bt, ct)) out.push(finding(r, `content type ${bt.join(', ') || 'none'} -> ${ct.join(', ') || 'none'}`));
    if (b.bodies.some > 0 && b.bodies.empty === 0 && c.bodies.empty > 0)
      out.push(finding(r, `the body is empty in ${c.bodies.empty} of ${c.bodies.some + c.bodies.empty} responses (it never was)`));
  }
  return out;
};

const streamEnds: Comparer = ({ scope, base, cand }) => {
  const out: Finding[] = [];
  compareStreamEnds(scope, base, cand, out);
  return out;
};

const contracts: Comparer = ({ scope, newViolations }) =>
  [...newViolations].map(([rule, { probes }]) => ({
    heading: 'contract',
    severity: 'breaking',
    scope,
    subject: `${rule} in ${probeList(probes)}`,
    message: `new contract violation: ${rule}`,
    probes: probes.map(probeName),
  }));

const verdicts: Comparer = ({ scope, base, cand }) =>
  (base.manifest?.probes ?? []).flatMap((p): Finding[] => {
    const c = cand.manifest?.probes.find((x) => x.probe === p.probe);
    if (!c || c.verdict === p.verdict) return [];
    return [
      {
        heading: 'verdict',
        severity: p.verdict === 'SUPPORTED' ? 'breaking' : 'notable',
        scope,
        subject: p.probe,
        message: `${p.verdict} -> ${c.verdict} (${c.reason})`,
        probes: [p.probe],
      },
    ];
  });

/** The comparers, in the order their findings are listed. */
const COMPARERS: readonly Comparer[] = [vocabulary, sequences, payloads, answers, streamEnds, contracts, verdicts];

/** Everything that moved from `base` to `cand`, with a severity each, leaving out what `noise` says is chance. */
export function compareProfiles(scope: string, base: Profile, cand: Profile, noise: Noise = { unordered: [], sometimes: [] }): Finding[] {
  const c = comparison(scope, base, cand, noise);
  return COMPARERS.flatMap((compare) => compare(c));
}
