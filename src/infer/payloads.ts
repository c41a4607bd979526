import type { LearnedStream } from './recordings.js';
import { learn, newSeen, type Seen, toJsonSchema } from './schema.js';

/** A payload schema per event type, with how many events and streams showed it and where first. */
export function learnPayloads(streams: readonly LearnedStream[], minSupport: number) {
  const byType = new Map<string, { seen: Seen; streams: Set<string>; first: string }>();
  for (const s of streams)
    for (const e of s.events) {
      if (e.type === ':comment') continue;
      let entry = byType.get(e.type);
      if (!entry) byType.set(e.type, (entry = { seen: newSeen(), streams: new Set(), first: s.where }));
      learn(entry.seen, e.data);
      entry.streams.add(s.where);
    }
  return [...byType]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([type, e]) => ({
      type,
      schema: toJsonSchema(e.seen, minSupport),
      events: e.seen.count,
      streams: e.streams.size,
      first: e.first,
    }));
}

/** Which event type a payload or vocabulary violation is about: `run.started data.x: ...`, `unknown event type X: ...`. */
export function violatedType(message: string): string {
  return /^unknown event type (\S+):/.exec(message)?.[1] ?? message.split(' ')[0] ?? '';
}
