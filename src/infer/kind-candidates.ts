import { type Candidate, candidate } from './candidate.js';
import type { LearnedStream } from './recordings.js';
import type { Labeller } from './refine.js';

const refined = (label: string) => label.includes('[');

/** `firstEvent` of a kind within a type, where every stream opens with it (`chat.completion.chunk[choices.0.delta.role=assistant]`). */
function firstKinds(streams: readonly LearnedStream[], label: Labeller): Candidate[] {
  let common: string[] | undefined;
  for (const s of streams) {
    const first = s.events[0];
    const labels = first && first.type !== ':comment' ? label(first.type, first.data).filter(refined) : [];
    common = common === undefined ? labels : common.filter((l) => labels.includes(l));
  }
  const kind = common?.sort()[0];
  if (kind === undefined) return [];
  const description = `every stream opens with ${kind}`;
  return [
    candidate(
      { kind: 'firstEvent', description, scope: 'stream', event: kind },
      { support: streams.length, unit: 'streams', streams: streams.length, first: streams[0]?.where ?? '' },
    ),
  ];
}

/** `exactlyOne` or `atMostOne` of a kind within a type, per stream: the one chunk that carries a finish reason. */
function countedKinds(streams: readonly LearnedStream[], label: Labeller): Candidate[] {
  const facts = new Map<string, { most: number; streams: number; first: string }>();
  for (const s of streams) {
    const counts = new Map<string, number>();
    for (const e of s.events) for (const l of label(e.type, e.data).filter(refined)) counts.set(l, (counts.get(l) ?? 0) + 1);
    for (const [l, n] of counts) {
      const f = facts.get(l) ?? { most: 0, streams: 0, first: s.where };
      facts.set(l, { most: Math.max(f.most, n), streams: f.streams + 1, first: f.first });
    }
  }
  const out: Candidate[] = [];
  for (const [l, f] of [...facts].sort((a, b) => a[0].localeCompare(b[0]))) {
    if (f.most !== 1) continue;
    const every = f.streams === streams.length;
    const description = every ? `exactly one ${l} in each stream` : `at most one ${l} in a stream`;
    const body = every
      ? { kind: 'exactlyOne' as const, description, scope: 'stream' as const, of: [l] }
      : { kind: 'atMostOne' as const, description, scope: 'stream' as const, of: l };
    out.push(candidate(body, { support: f.streams, unit: 'streams', streams: f.streams, first: f.first }));
  }
  return out;
}

/** Ordering candidates about kinds within a type (a field's value tells them apart), over whole streams. */
export function kindCandidates(streams: readonly LearnedStream[], label: Labeller): Candidate[] {
  return [...firstKinds(streams, label), ...countedKinds(streams, label)];
}
