import type { DriftNoise } from '../families/index.js';
import { same } from './field-comparers.js';
import type { Finding } from './findings.js';
import type { Profile } from './profile.js';
import { canonicalTurn, diffTurns, type SequenceNoise } from './sequence.js';

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

export const probeName = (file: string) => file.replace(/\.ya?ml$/, '');

/** A list of probes, short enough to read at a glance. */
export function probeList(names: string[]): string {
  const shown = names.slice(0, 4).map(probeName).join(', ');
  return names.length > 4 ? `${shown} and ${names.length - 4} more` : shown;
}

/** What a server leaves to chance (its races): never a finding. A family declares it (`drift.noise`). */
export type Noise = DriftNoise;

/**
 * Types whose runs are free: deltas (`response.output_text.delta`,
 * `item/agentMessage/delta`) come as many times as the text takes, which is
 * the model's business, not the protocol's. Any other repeat counts: a second
 * `response.output_item.done` is a change even where items come in a row.
 */
export function runTypes(profile: Profile, declared: readonly string[]): Set<string> {
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
/**
 * The candidate's turn of a stream both clients closed, cut where the baseline's client stopped: after as many
 * events of the baseline's last type as the baseline has. What the server sent past that point reached the new
 * recording only in the moment the close took (decision 0031); an event the candidate lacks is still reported.
 */
function pastClose(b: readonly string[], c: string[]): string[] {
  const last = b.at(-1);
  let left = b.filter((t) => t === last).length;
  for (let i = 0; i < c.length; i++) if (c[i] === last && --left === 0) return c.slice(0, i + 1);
  return c;
}

export function compareSequences(
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
    const loose = unplaced[probeName(probe)] ?? unplaced['*'] ?? [];
    const here: SequenceNoise = loose.length ? { ...noise, sometimes: new Set([...noise.sometimes, ...loose]) } : noise;
    baseTurns.forEach((baseTurn, k) => {
      const candTurn = candTurns[k];
      if (!candTurn) return;
      const b = canonicalTurn(baseTurn, here);
      // Only a folder no family recorded (a re-run): a family's probes close their streams where they choose, alike every run.
      const closed = base.manifest === undefined && baseTurn.clientClosed && candTurn.clientClosed;
      const c = closed ? pastClose(b, canonicalTurn(candTurn, here)) : canonicalTurn(candTurn, here);
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
export function compareStreamEnds(scope: string, base: Profile, cand: Profile, out: Finding[]): void {
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
