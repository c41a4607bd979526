import type { Severity } from './config.js';
import type { Profile } from './profile.js';
import type { JsonType, Shape } from './shape.js';

export const HEADINGS = ['vocabulary', 'payload shape', 'ordering', 'status codes', 'contract', 'verdict'] as const;
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
}

const types = (s: Set<JsonType>) => [...s].filter((t) => t !== 'null').sort();
const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

function compareShapes(scope: string, subject: string, base: Shape, cand: Shape, out: Finding[]): void {
  const removed: string[] = [];
  for (const [path, baseTypes] of base) {
    if (removed.some((r) => path.startsWith(`${r}.`) || path.startsWith(`${r}[]`))) continue;
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
    } else if (candTypes.has('null') && !baseTypes.has('null')) {
      out.push({ heading: 'payload shape', severity: 'notable', scope, subject, message: `field ${path} is now nullable` });
    }
  }
  const added: string[] = [];
  for (const path of cand.keys()) {
    if (base.has(path) || added.some((a) => path.startsWith(`${a}.`) || path.startsWith(`${a}[]`))) continue;
    added.push(path);
    out.push({ heading: 'payload shape', severity: 'info', scope, subject, message: `field ${path} added` });
  }
}

function firsts(turn: string[]): Map<string, number> {
  const m = new Map<string, number>();
  turn.forEach((t, i) => {
    if (!m.has(t)) m.set(t, i);
  });
  return m;
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

/** Pairs (a before b, by first occurrence) that held in every baseline turn where both appear. */
function heldPairs(turns: string[][]): Map<string, [string, string]> {
  const held = new Map<string, [string, string]>();
  const broken = new Set<string>();
  for (const turn of turns) {
    const f = firsts(turn);
    for (const [a, ia] of f) {
      for (const [b, ib] of f) {
        if (a === b) continue;
        const key = `${a}\u0000${b}`;
        if (ia < ib) held.set(key, [a, b]);
        else broken.add(key);
      }
    }
  }
  for (const key of broken) held.delete(key);
  return held;
}

const probeName = (file: string) => file.replace(/\.ya?ml$/, '');

/** A list of probes, short enough to read at a glance. */
function probeList(names: string[]): string {
  const shown = names.slice(0, 4).map(probeName).join(', ');
  return names.length > 4 ? `${shown} and ${names.length - 4} more` : shown;
}

/** Order relations the baseline always kept and the candidate broke: one finding per relation, naming every probe it broke in. */
function compareOrdering(scope: string, base: Profile, cand: Profile, out: Finding[], unordered: Set<string>): void {
  const broken = new Map<string, { a: string; b: string; probes: string[]; excerpt: string[] }>();
  for (const [probe, turns] of base.turns) {
    const candTurns = cand.turns.get(probe);
    if (!candTurns) continue;
    for (const [key, [a, b]] of heldPairs(turns)) {
      if (unordered.has(key)) continue;
      const turn = candTurns.find((t) => {
        const f = firsts(t);
        const ia = f.get(a);
        const ib = f.get(b);
        return ia !== undefined && ib !== undefined && ib < ia;
      });
      if (!turn) continue;
      const entry = broken.get(key) ?? {
        a,
        b,
        probes: [],
        excerpt: [`- ${foldRuns(turns.find((x) => x.includes(a) && x.includes(b)) ?? [])}`, `+ ${foldRuns(turn)}`],
      };
      entry.probes.push(probe);
      broken.set(key, entry);
    }
  }
  for (const { a, b, probes, excerpt } of broken.values()) {
    out.push({
      heading: 'ordering',
      severity: 'breaking',
      scope,
      subject: probeList(probes),
      message: `${a} used to precede ${b}; now it comes after`,
      excerpt,
    });
  }
}

/** Event types whose relative order a server does not fix (a race between two of its components), in either order. */
export type UnorderedPairs = readonly (readonly [string, string])[];

/** What a server leaves to chance (its races): never a finding. */
export interface Noise {
  unordered: UnorderedPairs;
  /** Event types sent in some runs only: their coming and going is no finding. */
  sometimes: readonly string[];
}

/** Everything that moved from `base` to `cand`, with a severity each, leaving out what `noise` says is chance. */
export function compareProfiles(scope: string, base: Profile, cand: Profile, noise: Noise = { unordered: [], sometimes: [] }): Finding[] {
  const out: Finding[] = [];
  const { unordered } = noise;
  const sometimes = new Set(noise.sometimes);
  for (const t of base.eventShapes.keys())
    if (!cand.eventShapes.has(t) && !sometimes.has(t))
      out.push({ heading: 'vocabulary', severity: 'breaking', scope, subject: t, message: `event type ${t} disappeared` });
  for (const t of cand.eventShapes.keys())
    if (!base.eventShapes.has(t) && !sometimes.has(t))
      out.push({ heading: 'vocabulary', severity: 'notable', scope, subject: t, message: `event type ${t} appeared` });
  for (const r of base.routes.keys())
    if (!cand.routes.has(r))
      out.push({ heading: 'vocabulary', severity: 'breaking', scope, subject: r, message: `route ${r} disappeared` });
  for (const r of cand.routes.keys())
    if (!base.routes.has(r)) out.push({ heading: 'vocabulary', severity: 'notable', scope, subject: r, message: `route ${r} appeared` });

  for (const [t, shape] of base.eventShapes) {
    const c = cand.eventShapes.get(t);
    if (c) compareShapes(scope, t, shape, c, out);
  }
  for (const [r, shape] of base.routeShapes) {
    const c = cand.routeShapes.get(r);
    if (c) compareShapes(scope, r, shape, c, out);
  }
  for (const [r, b] of base.routes) {
    const c = cand.routes.get(r);
    if (!c) continue;
    const bs = [...b.statuses].sort();
    const cs = [...c.statuses].sort();
    if (!same(bs.map(String), cs.map(String)))
      out.push({
        heading: 'status codes',
        severity: 'breaking',
        scope,
        subject: r,
        message: `status ${bs.join(', ')} -> ${cs.join(', ')}`,
      });
    const bt = [...b.contentTypes].sort();
    const ct = [...c.contentTypes].sort();
    if (!same(bt, ct))
      out.push({
        heading: 'status codes',
        severity: 'breaking',
        scope,
        subject: r,
        message: `content type ${bt.join(', ') || 'none'} -> ${ct.join(', ') || 'none'}`,
      });
  }
  compareOrdering(scope, base, cand, out, new Set(unordered.flatMap(([a, b]) => [`${a}\u0000${b}`, `${b}\u0000${a}`])));
  const newViolations = new Map<string, string[]>();
  for (const [name, rules] of cand.violations) {
    const before = base.violations.get(name) ?? new Set();
    for (const rule of rules) if (!before.has(rule)) newViolations.set(rule, [...(newViolations.get(rule) ?? []), name]);
  }
  for (const [rule, names] of newViolations)
    out.push({ heading: 'contract', severity: 'breaking', scope, subject: probeList(names), message: `new contract violation: ${rule}` });
  for (const p of base.manifest?.probes ?? []) {
    const c = cand.manifest?.probes.find((x) => x.probe === p.probe);
    if (!c || c.verdict === p.verdict) continue;
    out.push({
      heading: 'verdict',
      severity: p.verdict === 'SUPPORTED' ? 'breaking' : 'notable',
      scope,
      subject: p.probe,
      message: `${p.verdict} -> ${c.verdict} (${c.reason})`,
    });
  }
  return out;
}
