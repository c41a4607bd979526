import { comparePresence, compareShapes, compareValues, same } from './field-comparers.js';
import type { Finding } from './findings.js';
import type { Profile } from './profile.js';
import type { SequenceNoise } from './sequence.js';
import { compareSequences, compareStreamEnds, type Noise, probeList, probeName, runTypes } from './sequence-comparers.js';

export { type Finding, HEADINGS, type Heading } from './findings.js';
export { foldRuns, type Noise } from './sequence-comparers.js';

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
