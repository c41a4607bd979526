import { type Candidate, candidate } from './candidate.js';
import type { KeyedStream } from './keyed-events.js';
import { stringLeaves } from './leaves.js';

// A field whose name says it holds where something is in its life.
const STATUS = /(^|\.)(status|state|phase|stage)$/i;
const VALUES_MAX = 6;

/** Per key value, the field's values in the order they first came: one walk of a thing's life. */
function walks(streams: readonly KeyedStream[], type: string, key: string, field: string): string[][] {
  const out: string[][] = [];
  for (const s of streams) {
    const byKey = new Map<string | number, string[]>();
    for (const e of s.events) {
      const k = e.keys.get(key);
      const v = e.type === type && k !== undefined ? stringLeaves(e.data).find(([p]) => p === field)?.[1] : undefined;
      if (v === undefined || k === undefined) continue;
      const walk = byKey.get(k) ?? [];
      if (walk[walk.length - 1] !== v) walk.push(v);
      byKey.set(k, walk);
    }
    out.push(...byKey.values());
  }
  return out;
}

/**
 * The stages every walk went through in order, values never seen one after the other sharing a stage
 * (completed | error); undefined when some walk went back or the values are no closed set.
 */
function stagesOf(walkList: readonly string[][]): string[][] | undefined {
  const values = [...new Set(walkList.flat())].sort();
  if (values.length < 2 || values.length > VALUES_MAX) return undefined;
  const before = new Set<string>();
  for (const w of walkList) {
    if (new Set(w).size !== w.length) return undefined; // a value came back
    for (let i = 0; i < w.length; i++) for (let j = i + 1; j < w.length; j++) before.add(`${w[i]}\n${w[j]}`);
  }
  const rank = new Map<string, number>();
  const rankOf = (v: string, depth = 0): number => {
    if (depth > values.length) return Number.NaN; // a cycle
    const known = rank.get(v);
    if (known !== undefined) return known;
    const r = Math.max(0, ...values.filter((u) => before.has(`${u}\n${v}`)).map((u) => rankOf(u, depth + 1) + 1));
    rank.set(v, r);
    return r;
  };
  for (const v of values) if (Number.isNaN(rankOf(v))) return undefined;
  const stages: string[][] = [];
  for (const v of values) (stages[rank.get(v) as number] ??= []).push(v);
  return stages.every((st) => st !== undefined) && stages.length > 1 ? stages : undefined;
}

/** `progression`: a status field of each key's events moves only forward through the stages every key went through. */
export function progressionCandidates(streams: readonly KeyedStream[], byKey: Map<string, string[]>): Candidate[] {
  const out: Candidate[] = [];
  for (const [key, types] of byKey)
    for (const type of types) {
      const fields = new Set<string>();
      for (const s of streams)
        for (const e of s.events) if (e.type === type) for (const [p] of stringLeaves(e.data)) if (STATUS.test(p)) fields.add(p);
      for (const field of [...fields].sort()) {
        const walkList = walks(streams, type, key, field);
        const moved = walkList.filter((w) => w.length > 1);
        const stages = moved.length > 0 ? stagesOf(walkList) : undefined;
        if (!stages) continue;
        const description = `the ${field} of a ${type} by ${key} goes ${stages.map((st) => st.join('|')).join(', then ')}, never back`;
        const first = streams.find((s) => s.events.some((e) => e.type === type))?.where ?? '';
        out.push(
          candidate(
            { kind: 'progression', description, scope: 'stream', event: type, key, field, stages },
            { support: moved.length, unit: 'keys', streams: moved.length, first },
          ),
        );
      }
    }
  // One key per type and field: the one the most things walked by (a part's own id over its session's).
  const best = new Map<string, Candidate>();
  for (const c of out) {
    const r = c.rule as { event: string; field: string };
    const id = `${r.event}\n${r.field}`;
    if ((best.get(id)?.support ?? -1) < c.support) best.set(id, c);
  }
  return [...best.values()];
}
