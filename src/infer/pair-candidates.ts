import { type Candidate, candidate } from './candidate.js';
import type { KeyedStream } from './keyed-events.js';

interface PairCheck {
  ok: boolean;
  pairs: number;
  streams: number;
  first: string;
}

/** Whether every `start` of a key value is closed by exactly one later `end` (one of `ends`), and no end comes unopened. */
function checkPairs(streams: readonly KeyedStream[], start: string, ends: ReadonlySet<string>, key: string): PairCheck {
  const out: PairCheck = { ok: true, pairs: 0, streams: 0, first: '' };
  for (const s of streams) {
    const open = new Set<string | number>();
    let closed = 0;
    for (const e of s.events) {
      const v = e.keys.get(key);
      if (e.labels.includes(start)) {
        if (v === undefined || open.has(v)) return { ...out, ok: false };
        open.add(v);
      } else if (e.labels.some((l) => ends.has(l))) {
        if (v === undefined || !open.delete(v)) return { ...out, ok: false };
        closed++;
      }
    }
    if (closed > 0) {
      out.pairs += closed;
      out.streams++;
      if (out.first === '') out.first = s.where;
    }
  }
  return out;
}

/** Among `ends`, those never seen with another of them for one key value: alternatives that close the same thing. */
function exclusiveEnds(streams: readonly KeyedStream[], ends: readonly string[], key: string): string[] {
  const together = new Set<string>();
  for (const s of streams) {
    const seen = new Map<string | number, Set<string>>();
    for (const e of s.events) {
      const v = e.keys.get(key);
      const end = e.labels.find((l) => ends.includes(l));
      if (v === undefined || end === undefined) continue;
      const set = seen.get(v) ?? new Set<string>();
      for (const other of set) if (other !== end) together.add(`${other}\n${end}`).add(`${end}\n${other}`);
      seen.set(v, set.add(end));
    }
  }
  const chosen: string[] = [];
  for (const end of ends) if (chosen.every((c) => !together.has(`${c}\n${end}`))) chosen.push(end);
  return chosen;
}

// The words that name where in its life a thing is: what a start and its end differ by (TOOL_CALL_START, TOOL_CALL_END).
const LIFECYCLE =
  /[._/:-]?(start|started|begin|end|ended|stop|stopped|complete|completed|finish|finished|done|in_progress|progress|request|requested|response|responded|created|updated|deleted|opened|closed|failed|error|errored|cancelled|canceled|interrupted|added|available|delta|asked|replied|answered)$/i;

/** A type's name without its lifecycle word: `TOOL_CALL_START` and `TOOL_CALL_END` are both `tool_call`. */
const stem = (type: string) =>
  type
    .replace(/^client:/, '')
    .replace(LIFECYCLE, '')
    .toLowerCase();

/**
 * Whether a start and its ends name one thing: their names differ only by a lifecycle word (`run.started`,
 * `run.completed`), or they are kinds of one type (a tool's progress running, then completed). Anything else that
 * pairs one to one in the recordings (a session's creation and its first diff) is a coincidence of the script.
 */
function namesOneThing(start: string, ends: readonly string[]): boolean {
  // JSON-RPC: a request and the response that answers it, whichever side asked.
  const answer = start.startsWith('client:') ? 'response' : 'client:response';
  if (!/^(client:)?(response|notifications\/)/.test(start) && ends.every((e) => e.startsWith(answer))) return true;
  if (ends.every((e) => stem(e) === stem(start) && stem(start) !== '')) return true;
  // `type[field=` of a kind: its type and the field its value is read from, which the start and ends share.
  const base = (label: string) => label.slice(0, label.indexOf('=') + 1);
  return start.includes('[') && ends.every((e) => e.includes('[') && base(e) === base(start));
}

/** A pair found: its start, ends and key, with its evidence. */
export interface FoundPair {
  start: string;
  ends: string[];
  key: string;
  check: PairCheck;
}

/** Starts and ends matched one to one by a key (a run by its id, a message, a tool call). */
export function findPairs(streams: readonly KeyedStream[], byKey: Map<string, string[]>): FoundPair[] {
  const out: FoundPair[] = [];
  for (const [key, types] of byKey)
    for (const start of types) {
      const single = types.filter(
        (end) => end !== start && namesOneThing(start, [end]) && checkPairs(streams, start, new Set([end]), key).ok,
      );
      // Alternatives (a turn completed or cancelled): ends never seen together for one key close it between them.
      const pool = single.length > 0 ? single : types.filter((t) => t !== start && namesOneThing(start, [t]));
      const ends = exclusiveEnds(streams, pool, key);
      const union = ends.length >= 2 ? checkPairs(streams, start, new Set(ends), key) : undefined;
      if (union?.ok) out.push({ start, ends, key, check: union });
      for (const end of single)
        if (!union?.ok || !ends.includes(end))
          out.push({ start, ends: [end], key, check: checkPairs(streams, start, new Set([end]), key) });
    }
  // One key per pair of types: the one with the most pairs (a run's own id over the thread it is on).
  const best = new Map<string, FoundPair>();
  for (const p of out) {
    const id = `${p.start}\n${p.ends.join('|')}`;
    const had = best.get(id);
    if (!had || p.check.pairs > had.check.pairs) best.set(id, p);
  }
  return [...best.values()].filter((p) => namesOneThing(p.start, p.ends));
}

/** Where each event of a key stands against its pair: before the start, inside, or after the end. */
function contentPlaces(
  streams: readonly KeyedStream[],
  pair: FoundPair,
  type: string,
): { inside: boolean; notAfter: boolean; keys: number } {
  let inside = true;
  let notAfter = true;
  const keys = new Set<string>();
  for (const s of streams) {
    const state = new Map<string | number, 'open' | 'closed'>();
    for (const e of s.events) {
      const v = e.keys.get(pair.key);
      if (v === undefined) continue;
      if (e.labels.includes(pair.start)) state.set(v, 'open');
      else if (e.labels.some((l) => pair.ends.includes(l))) state.set(v, 'closed');
      else if (e.labels.includes(type)) {
        keys.add(`${s.where} ${v}`);
        if (state.get(v) === undefined) inside = false;
        if (state.get(v) === 'closed') notAfter = false;
      }
    }
  }
  return { inside, notAfter, keys: keys.size };
}

/** `pairedBy` for each pair, and for the events that share its key: opened before them, nothing after the end. */
export function pairCandidates(streams: readonly KeyedStream[], byKey: Map<string, string[]>): Candidate[] {
  const out: Candidate[] = [];
  for (const pair of findPairs(streams, byKey)) {
    const { start, ends, key, check } = pair;
    const endSel = ends.join('|');
    out.push(
      candidate(
        {
          kind: 'pairedBy',
          description: `each ${start} is closed by one ${ends.join(' or ')} with the same ${key}`,
          scope: 'stream',
          start,
          end: ends,
          key,
        },
        { support: check.pairs, unit: 'keys', streams: check.streams, first: check.first },
      ),
    );
    // Plain types only: a selector joins alternatives (`a|b`) of types, not of kinds with conditions.
    const content = (byKey.get(key) ?? []).filter(
      (t) => t !== start && !ends.includes(t) && !t.includes('[') && !t.startsWith(`${start}[`),
    );
    const places = content.map((t) => ({ t, ...contentPlaces(streams, pair, t) })).filter((p) => p.keys > 0);
    const inside = places.filter((p) => p.inside);
    const notAfter = places.filter((p) => p.notAfter);
    const keys = (list: typeof places) => Math.max(0, ...list.map((p) => p.keys));
    if (inside.length > 0) {
      const later = inside.map((p) => p.t).join('|');
      const description = `${later} of a ${key} only after its ${start}`;
      out.push(
        candidate(
          { kind: 'precedes', description, scope: 'stream', by: key, earlier: start, later },
          { support: keys(inside), unit: 'keys', streams: check.streams, first: check.first },
        ),
      );
    }
    if (notAfter.length > 0 && (ends.length === 1 || !endSel.includes('['))) {
      const event = notAfter.map((p) => p.t).join('|');
      const description = `no ${event} of a ${key} after its ${endSel}`;
      out.push(
        candidate(
          { kind: 'never', description, scope: 'stream', by: key, event, after: endSel },
          { support: keys(notAfter), unit: 'keys', streams: check.streams, first: check.first },
        ),
      );
    }
  }
  return out;
}
