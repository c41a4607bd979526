import { keyFields } from '../contracts/index.js';
import type { LearnedStream } from './recordings.js';
import type { Labeller } from './refine.js';

/** One event as the keyed candidates read it: its type, data and key fields. */
export interface KeyedEvent {
  type: string;
  /** Its type and the kinds within the type it is (`type[status=running]`): what rules may name it by. */
  labels: string[];
  data: unknown;
  keys: Map<string, string | number>;
}

/** A stream's events with their key fields read once, comment lines left out. */
export interface KeyedStream {
  where: string;
  events: KeyedEvent[];
}

export function keyedStreams(streams: readonly LearnedStream[], label: Labeller): KeyedStream[] {
  return streams.map((s) => ({
    where: s.where,
    events: s.events
      .filter((e) => e.type !== ':comment')
      .map((e) => ({ type: e.type, labels: label(e.type, e.data), data: e.data, keys: keyFields(e.data) })),
  }));
}

/** Per key path, the labels whose every event carries it, sorted: what pairs and keyed rules are built from. */
export function typesByKey(streams: readonly KeyedStream[]): Map<string, string[]> {
  const total = new Map<string, number>();
  const carrying = new Map<string, Map<string, number>>();
  for (const s of streams)
    for (const e of s.events)
      for (const label of e.labels) {
        total.set(label, (total.get(label) ?? 0) + 1);
        let paths = carrying.get(label);
        if (!paths) carrying.set(label, (paths = new Map()));
        for (const path of e.keys.keys()) paths.set(path, (paths.get(path) ?? 0) + 1);
      }
  const out = new Map<string, string[]>();
  for (const [label, paths] of carrying)
    for (const [path, n] of paths) if (n === total.get(label)) out.set(path, [...(out.get(path) ?? []), label]);
  for (const list of out.values()) list.sort();
  return new Map([...out].sort((a, b) => a[0].localeCompare(b[0])));
}
