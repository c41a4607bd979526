import { compileSelector } from '../contracts/index.js';
import { type Candidate, candidate } from './candidate.js';
import type { KeyedEvent, KeyedStream } from './keyed-events.js';
import { scalarLeaves, stringLeaves } from './leaves.js';

type Match = (e: KeyedEvent) => boolean;

/** Pieces of one key joined: a sample to find the event carrying the whole text. */
interface Joined {
  delta: string;
  deltaKey: string;
  deltaField: string;
  key: string | number;
}

/** Every (type, key path, string field) whose pieces joined for one key, with two or more pieces, give this text. */
function joinedTexts(streams: readonly KeyedStream[], byKey: Map<string, string[]>): Map<string, Joined[]> {
  const out = new Map<string, Joined[]>();
  for (const [deltaKey, types] of byKey)
    for (const s of streams) {
      // Per (type, key value): each field's joined text and how many pieces gave some of it.
      const groups = new Map<string, Map<string, { text: string; pieces: number }>>();
      for (const e of s.events) {
        const v = e.keys.get(deltaKey);
        if (v === undefined || !types.includes(e.type)) continue;
        const id = `${e.type}\n${v}`;
        const g = groups.get(id) ?? new Map<string, { text: string; pieces: number }>();
        for (const [field, text] of stringLeaves(e.data)) {
          const f = g.get(field) ?? { text: '', pieces: 0 };
          if (field !== deltaKey && text !== '') g.set(field, { text: f.text + text, pieces: f.pieces + 1 });
        }
        groups.set(id, g);
      }
      for (const [id, g] of groups) {
        const [delta, key] = id.split('\n') as [string, string];
        for (const [deltaField, { text, pieces }] of g) {
          if (pieces < 2 || text.trim() === '') continue;
          const list = out.get(text) ?? [];
          if (!list.some((j) => j.delta === delta && j.deltaKey === deltaKey && j.deltaField === deltaField))
            list.push({ delta, deltaKey, deltaField, key });
          out.set(text, list);
        }
      }
    }
  return out;
}

interface Proposal extends Joined {
  whole: string;
  wholeKey: string;
  wholeField: string;
  /** Fields the matching event has and an earlier event of its type and key lacked: what marks the final one. */
  marks: string[];
}

/** The leaves `e` has that an event of its type and key value before it lacked (a part's final update has `time.end`). */
function marksOf(events: readonly KeyedEvent[], at: number, wholeKey: string): string[] {
  const e = events[at] as KeyedEvent;
  const own = scalarLeaves(e.data).map(([p]) => p);
  const missing = new Set<string>();
  for (const other of events.slice(0, at))
    if (other.type === e.type && other.keys.get(wholeKey) === e.keys.get(wholeKey)) {
      const has = new Set(scalarLeaves(other.data).map(([p]) => p));
      for (const p of own) if (!has.has(p)) missing.add(p);
    }
  return [...missing].sort((a, b) => a.length - b.length || a.localeCompare(b)).slice(0, 4);
}

/** Events elsewhere whose one field is exactly a joined text, under a key path holding the same key value. */
function proposals(streams: readonly KeyedStream[], joined: Map<string, Joined[]>): Proposal[] {
  const out = new Map<string, Proposal>();
  for (const s of streams)
    s.events.forEach((e, at) => {
      for (const [wholeField, text] of stringLeaves(e.data))
        for (const j of joined.get(text) ?? []) {
          if (j.delta === e.type) continue;
          for (const [wholeKey, v] of e.keys) {
            const id = [j.delta, j.deltaKey, j.deltaField, e.type, wholeKey, wholeField].join('\n');
            if (String(v) === String(j.key) && !out.has(id))
              out.set(id, { ...j, whole: e.type, wholeKey, wholeField, marks: marksOf(s.events, at, wholeKey) });
          }
        }
    });
  return [...out.values()];
}

/** How many texts the pieces added up to, and where first; undefined when one did not, or a piece came after its whole. */
function holds(streams: readonly KeyedStream[], p: Proposal, whole: Match): { texts: number; first: string } | undefined {
  let texts = 0;
  let first = '';
  for (const s of streams) {
    const text = new Map<string, string>();
    const done = new Set<string>();
    for (const e of s.events) {
      if (e.type === p.delta && e.keys.has(p.deltaKey)) {
        const k = String(e.keys.get(p.deltaKey));
        if (done.has(k)) return undefined;
        const piece = stringLeaves(e.data).find(([f]) => f === p.deltaField)?.[1] ?? '';
        text.set(k, (text.get(k) ?? '') + piece);
      } else if (whole(e)) {
        const k = String(e.keys.get(p.wholeKey));
        done.add(k);
        const want = stringLeaves(e.data).find(([f]) => f === p.wholeField)?.[1];
        const got = text.get(k);
        if (got === undefined || want === undefined) continue;
        if (got !== want) return undefined;
        texts++;
        if (first === '') first = s.where;
      }
    }
  }
  return texts > 0 ? { texts, first } : undefined;
}

/**
 * `assembles`: a type's pieces of a key add up, in order, to the text another event of that key carries whole,
 * found by the text itself; where a type sends its text growing, only its events with a field the others lack
 * (the final one) are the whole.
 */
export function assembleCandidates(streams: readonly KeyedStream[], byKey: Map<string, string[]>): Candidate[] {
  const out: Candidate[] = [];
  const kept = new Set<string>();
  // The narrowest key first: a part's text adds up by the part's id, and also by its session's, which says less.
  const distinct = (type: string, key: string) =>
    new Set(streams.flatMap((s) => s.events.filter((e) => e.type === type).map((e) => e.keys.get(key)))).size;
  // On a tie, the whole's own id (`part.id`) over an id it merely refers to (`part.messageID`).
  const own = (p: Proposal) => (/(^|\.)id$/.test(p.wholeKey) ? 0 : 1);
  const ranked = proposals(streams, joinedTexts(streams, byKey)).sort(
    (a, b) => distinct(b.delta, b.deltaKey) - distinct(a.delta, a.deltaKey) || own(a) - own(b),
  );
  for (const p of ranked) {
    const what = [p.delta, p.deltaField, p.whole, p.wholeField].join('\n');
    if (kept.has(what)) continue;
    const wholes = [p.whole, ...p.marks.map((path) => `${p.whole}[${path}]`)];
    for (const whole of wholes) {
      const sel = compileSelector(whole);
      const found = holds(streams, p, (e) => sel.matches(e));
      if (!found) continue;
      const description = `the ${p.delta} pieces of a ${p.deltaKey} add up to its ${whole} ${p.wholeField}`;
      const body = {
        kind: 'assembles' as const,
        description,
        scope: 'stream' as const,
        delta: p.delta,
        deltaKey: p.deltaKey,
        deltaField: p.deltaField,
        whole,
        wholeKey: p.wholeKey,
        wholeField: p.wholeField,
      };
      out.push(candidate(body, { support: found.texts, unit: 'texts', streams: found.texts, first: found.first }));
      kept.add(what);
      break;
    }
  }
  return out;
}
