import type { Rule } from './rules.js';
import { anyOf, type CheckedEvent, compileSelector, valueAt, valueAtAny } from './selectors.js';

/** A broken rule at one event of a segment; indices are positions in the whole stream. */
export interface RuleViolation {
  rule: string;
  eventIndex: number;
  message: string;
  /**
   * Broken only for want of an event outside what a window on the stream may show: a `later` one that never came (a
   * trace cut short did not observe it) or an `earlier` one (a stream joined late did not).
   */
  needs?: 'later' | 'earlier' | undefined;
}

/** A stretch of a stream a rule is checked over: the whole stream, or one turn. */
export interface Segment {
  start: number;
  end: number;
}

/** A segment's events shared out by a scope key: each key's events, and where they stand in the stream. */
export interface ScopeGroups {
  /** One key for every event of the segment: the rule is checked in place. */
  whole: boolean;
  groups: { at: number[]; events: CheckedEvent[] }[];
}

/** Shares out a segment's events by the value at `by` (`a|b`: whichever the event has), in one pass; events without one are left out. */
export function groupByScope(events: readonly CheckedEvent[], seg: Segment, by: string): ScopeGroups {
  const paths = by.split('|');
  const byKey = new Map<unknown, { at: number[]; events: CheckedEvent[] }>();
  for (let i = seg.start; i < seg.end; i++) {
    const e = events[i] as CheckedEvent;
    const key = valueAtAny(e.data, paths);
    if (key === undefined || key === null) continue;
    // Keys are strings or numbers in every protocol here; an object key stands for itself by its JSON.
    const k = typeof key === 'object' ? JSON.stringify(key) : key;
    const group = byKey.get(k);
    if (group) {
      group.at.push(i);
      group.events.push(e);
    } else byKey.set(k, { at: [i], events: [e] });
  }
  const groups = [...byKey.values()];
  return { whole: groups.length === 1 && groups[0]?.at.length === seg.end - seg.start, groups };
}

/**
 * Checks one rule over one segment in a single pass: every rule kind is linear
 * in the number of events (the pairing rule keeps one map of open keys). A
 * rule with a scope key (`by`) is checked for each key's events on their own;
 * rules that share a key can share its `groups`.
 */
export function checkRule(
  rule: Rule,
  events: readonly CheckedEvent[],
  seg: Segment,
  groups: ScopeGroups | undefined = rule.by === undefined ? undefined : groupByScope(events, seg, rule.by),
): RuleViolation[] {
  if (!groups || groups.whole) return checkSegment(rule, events, seg);
  const out: RuleViolation[] = [];
  for (const g of groups.groups)
    for (const v of checkSegment(rule, g.events, { start: 0, end: g.events.length }))
      out.push({ ...v, eventIndex: g.at[v.eventIndex] as number });
  return groups.groups.length > 1 ? out.sort((a, b) => a.eventIndex - b.eventIndex) : out;
}

function checkSegment(rule: Rule, events: readonly CheckedEvent[], seg: Segment): RuleViolation[] {
  const out: RuleViolation[] = [];
  const walk: Walk = {
    at: (i: number) => events[i] as CheckedEvent,
    start: seg.start,
    end: seg.end,
    v: (eventIndex, message, needs) => out.push({ rule: rule.name, eventIndex, message, needs }),
  };
  (CHECKS[rule.kind] as (rule: Rule, walk: Walk) => void)(rule, walk);
  return out;
}

/** What each kind's check walks: the events of a segment, and where it reports a break. */
interface Walk {
  at: (i: number) => CheckedEvent;
  start: number;
  end: number;
  v: (eventIndex: number, message: string, needs?: 'later' | 'earlier') => void;
}

type RuleOf<K extends Rule['kind']> = Extract<Rule, { kind: K }>;

function checkPrecedes(rule: RuleOf<'precedes'>, { at, start, end, v }: Walk): void {
  const earlier = compileSelector(rule.earlier);
  const later = compileSelector(rule.later);
  let seen = false;
  for (let i = start; i < end; i++) {
    if (later.matches(at(i)) && !seen) v(i, `${at(i).type} without an earlier ${rule.earlier}`, 'earlier');
    if (earlier.matches(at(i))) seen = true;
  }
}

function checkExactlyOne(rule: RuleOf<'exactlyOne'>, { at, start, end, v }: Walk): void {
  const sel = anyOf(rule.of);
  let count = 0;
  for (let i = start; i < end; i++) {
    if (sel.matches(at(i)) && ++count === 2) v(i, `a second ${at(i).type}; expected exactly one of ${rule.of.join(', ')}`);
  }
  if (count === 0 && end > start) v(end - 1, `no ${rule.of.join(' or ')}; expected exactly one`, 'later');
}

function checkAtMostOne(rule: RuleOf<'atMostOne'>, { at, start, end, v }: Walk): void {
  const sel = compileSelector(rule.of);
  let count = 0;
  for (let i = start; i < end; i++) if (sel.matches(at(i)) && ++count > 1) v(i, `${at(i).type} more than once`);
}

function checkTerminal(rule: RuleOf<'terminal'>, { at, start, end, v }: Walk): void {
  const term = anyOf(rule.of);
  const trailer = anyOf(rule.trailers);
  let seen = -1;
  for (let i = start; i < end; i++) {
    const e = at(i);
    if (term.matches(e)) {
      if (seen === -1) seen = i;
      else v(i, `a second terminal ${e.type}`);
    } else if (seen !== -1 && !trailer.matches(e)) {
      v(i, `${e.type} after the terminal ${at(seen).type}`);
    }
  }
  if (seen === -1 && end > start) v(end - 1, `no terminal event (${rule.of.join(', ')})`, 'later');
}

function checkPairedBy(rule: RuleOf<'pairedBy'>, { at, start, end, v }: Walk): void {
  const s = compileSelector(rule.start);
  const e = anyOf(rule.end);
  const abandon = rule.abandonedBy === undefined ? undefined : compileSelector(rule.abandonedBy);
  const open = new Map<string, number>();
  const closed = new Set<string>();
  // Left open by an abandoning event: an end may still come for them, but need not.
  const abandoned = new Set<string>();
  for (let i = start; i < end; i++) {
    const ev = at(i);
    if (abandon?.matches(ev)) {
      for (const key of open.keys()) abandoned.add(key);
      open.clear();
    }
    const key = String(valueAt(ev.data, rule.key));
    if (s.matches(ev)) {
      if (open.has(key)) v(i, `a second ${rule.start} for ${rule.key}=${key} while one is open`);
      else open.set(key, i);
      closed.delete(key);
      abandoned.delete(key);
    } else if (e.matches(ev)) {
      if (open.has(key) || abandoned.delete(key)) {
        open.delete(key);
        closed.add(key);
      } else
        v(
          i,
          closed.has(key)
            ? `a second ${ev.type} for ${rule.key}=${key}`
            : `${ev.type} for ${rule.key}=${key} without an earlier ${rule.start}`,
          closed.has(key) ? undefined : 'earlier',
        );
    }
  }
  for (const [key, i] of [...open].sort((a, b) => a[1] - b[1]))
    v(i, `${rule.start} for ${rule.key}=${key} never ended (${rule.end.join(' or ')})`, 'later');
}

function checkNever(rule: RuleOf<'never'>, { at, start, end, v }: Walk): void {
  const ev = compileSelector(rule.event);
  const after = compileSelector(rule.after);
  const until = rule.until === undefined ? undefined : compileSelector(rule.until);
  let seen = false;
  for (let i = start; i < end; i++) {
    if (until?.matches(at(i))) seen = false;
    if (seen && ev.matches(at(i))) v(i, `${at(i).type} after ${rule.after}`);
    if (after.matches(at(i))) seen = true;
  }
}

function checkEventually(rule: RuleOf<'eventually'>, { at, start, end, v }: Walk): void {
  const ev = compileSelector(rule.event);
  const after = compileSelector(rule.after);
  let lastEvent = -1;
  for (let i = start; i < end; i++) if (ev.matches(at(i))) lastEvent = i;
  for (let i = Math.max(start, lastEvent + 1); i < end; i++) {
    if (after.matches(at(i))) v(i, `${at(i).type} is never followed by ${rule.event}`, 'later');
  }
}

function checkFirstEvent(rule: RuleOf<'firstEvent'>, { at, start, end, v }: Walk): void {
  if (end > start && !compileSelector(rule.event).matches(at(start))) v(start, `the first event is ${at(start).type}, not ${rule.event}`);
}

function checkProgression(rule: RuleOf<'progression'>, { at, start, end, v }: Walk): void {
  const sel = compileSelector(rule.event);
  const keyPaths = rule.key.split('|');
  const fieldPaths = rule.field.split('|');
  const reached = new Map<string, number>();
  for (let i = start; i < end; i++) {
    const e = at(i);
    if (!sel.matches(e)) continue;
    const value = String(valueAtAny(e.data, fieldPaths));
    const stage = rule.stages.findIndex((st) => st.includes(value));
    if (stage === -1) continue;
    const key = String(valueAtAny(e.data, keyPaths));
    const top = reached.get(key) ?? -1;
    if (stage < top) v(i, `${rule.field} ${value} after ${rule.stages[top]?.join('|')} for ${rule.key}=${key}`);
    else reached.set(key, stage);
  }
}

function checkAssembles(rule: RuleOf<'assembles'>, { at, start, end, v }: Walk): void {
  const delta = compileSelector(rule.delta);
  const whole = compileSelector(rule.whole);
  const text = new Map<string, string>();
  const done = new Set<string>();
  for (let i = start; i < end; i++) {
    const e = at(i);
    if (delta.matches(e)) {
      const key = String(valueAt(e.data, rule.deltaKey));
      if (done.has(key)) v(i, `a delta of ${rule.deltaKey}=${key} after its whole text`);
      text.set(key, (text.get(key) ?? '') + String(valueAt(e.data, rule.deltaField) ?? ''));
    } else if (whole.matches(e)) {
      const key = String(valueAt(e.data, rule.wholeKey));
      done.add(key);
      const got = text.get(key);
      if (got === undefined) continue;
      const want = rule.wholeField === undefined ? undefined : valueAt(e.data, rule.wholeField);
      if (typeof want === 'string' && got !== want)
        v(
          i,
          `the deltas of ${rule.deltaKey}=${key} add up to ${JSON.stringify(got.slice(0, 60))}, not ${JSON.stringify(want.slice(0, 60))}`,
        );
      const unparsed = rule.parses === 'json' ? notJson(got) : undefined;
      if (unparsed) v(i, `the deltas of ${rule.deltaKey}=${key} add up to ${JSON.stringify(got.slice(0, 60))}, not JSON: ${unparsed}`);
    }
  }
}

/** Why a text streamed as JSON is not one JSON document (empty is no document at all, and allowed), or undefined. */
function notJson(text: string): string | undefined {
  if (text.trim() === '') return undefined;
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function checkSequence(rule: RuleOf<'sequence'>, { at, start, end, v }: Walk): void {
  let prev: number | undefined;
  for (let i = start; i < end; i++) {
    const value = valueAt(at(i).data, rule.field);
    if (typeof value !== 'number') continue;
    if (prev === undefined) {
      if (rule.start !== undefined && value !== rule.start) v(i, `${rule.field} starts at ${value}, not ${rule.start}`);
    } else if (rule.step !== undefined ? value !== prev + rule.step : value <= prev) {
      v(i, `${rule.field} ${value} after ${prev}; expected ${rule.step === undefined ? `more than ${prev}` : prev + rule.step}`);
    }
    prev = value;
  }
}

function checkFraming(rule: RuleOf<'framing'>, { at, start, end, v }: Walk): void {
  for (let i = start; i < end; i++) {
    const e = at(i);
    for (const field of rule.forbid)
      if (e[field] !== undefined) v(i, `a frame with ${field === 'comment' ? 'a comment line' : `an ${field}: line`}`);
  }
}

/** One single-pass check per rule kind. */
const CHECKS: { [K in Rule['kind']]: (rule: RuleOf<K>, walk: Walk) => void } = {
  precedes: checkPrecedes,
  exactlyOne: checkExactlyOne,
  atMostOne: checkAtMostOne,
  terminal: checkTerminal,
  pairedBy: checkPairedBy,
  never: checkNever,
  eventually: checkEventually,
  firstEvent: checkFirstEvent,
  progression: checkProgression,
  assembles: checkAssembles,
  sequence: checkSequence,
  framing: checkFraming,
};
