import type { Rule } from '../../src/contracts/index.js';

/**
 * A deliberately naive checker, written apart from src/ to cross-check it:
 * quadratic loops straight from each rule's one-line definition. Events are
 * `type` or `type:key` strings (the key feeds pairedBy); stream scope only.
 * A rule with a scope key goes through `scopedReferenceViolations`.
 */
export function referenceViolations(rule: Rule, events: string[]): number[] {
  const type = (e: string) => e.split(':')[0] as string;
  const key = (e: string) => e.split(':')[1] ?? 'undefined';
  const is = (e: string, sel: string) => sel === '*' || type(e) === sel;
  const bad: number[] = [];
  const n = events.length;
  for (let j = 0; j < n; j++) {
    const e = events[j] as string;
    const before = events.slice(0, j);
    const after = events.slice(j + 1);
    switch (rule.kind) {
      case 'precedes':
        if (is(e, rule.later) && !before.some((b) => is(b, rule.earlier))) bad.push(j);
        break;
      case 'exactlyOne': {
        const mine = (x: string) => rule.of.some((s) => is(x, s));
        if (mine(e) && before.filter(mine).length === 1) bad.push(j);
        if (j === n - 1 && !events.some(mine)) bad.push(j);
        break;
      }
      case 'atMostOne':
        if (is(e, rule.of) && before.some((b) => is(b, rule.of))) bad.push(j);
        break;
      case 'terminal': {
        const term = (x: string) => rule.of.some((s) => is(x, s));
        const trailer = (x: string) => rule.trailers.some((s) => is(x, s));
        const earlierTerm = before.some(term);
        if (term(e) && earlierTerm) bad.push(j);
        else if (!term(e) && earlierTerm && !trailer(e)) bad.push(j);
        if (j === n - 1 && !events.some(term)) bad.push(j);
        break;
      }
      case 'pairedBy': {
        const starts = (x: string) => is(x, rule.start);
        const ends = (x: string) => rule.end.some((s) => is(x, s));
        const abandons = (x: string) => rule.abandonedBy !== undefined && is(x, rule.abandonedBy);
        // The key's state just before j: starts open it, ends close what is open or abandoned, an abandoning event
        // (of any key) abandons what is open. The event's own abandoning comes before its start or end.
        type State = 'none' | 'open' | 'closed' | 'abandoned';
        const step = (state: State, h: string, own: boolean): State => {
          const s1 = abandons(h) && state === 'open' ? 'abandoned' : state;
          if (!own) return s1;
          if (starts(h)) return 'open';
          return ends(h) && (s1 === 'open' || s1 === 'abandoned') ? 'closed' : s1;
        };
        let state: State = before.reduce<State>((st, h) => step(st, h, key(h) === key(e)), 'none');
        if (abandons(e) && state === 'open') state = 'abandoned';
        const openNow = state === 'open';
        if (starts(e) && openNow) bad.push(j);
        if (ends(e) && !openNow && state !== 'abandoned') bad.push(j);
        // A start that opened is closed by the first later end of its key, or let go by a later abandoning event.
        if (starts(e) && !openNow) {
          const settles = after.find((x) => (key(x) === key(e) && ends(x)) || abandons(x));
          if (settles === undefined) bad.push(j);
        }
        break;
      }
      case 'never': {
        // An `until` after the `after` (up to and with this event) starts over.
        const until = rule.until;
        const cleared = (k: number) => until !== undefined && events.slice(k + 1, j + 1).some((x) => is(x, until));
        if (is(e, rule.event) && before.some((b, k) => is(b, rule.after) && !cleared(k))) bad.push(j);
        break;
      }
      case 'eventually':
        if (is(e, rule.after) && !after.some((a) => is(a, rule.event))) bad.push(j);
        break;
      case 'firstEvent':
        if (j === 0 && !is(e, rule.event)) bad.push(j);
        break;
      case 'framing':
        break;
      case 'progression': {
        // Events here are type:key; the key doubles as the stage value, one event stream per rule test.
        const stageOf = (x: string) => rule.stages.findIndex((st) => st.includes(key(x)));
        if (!is(e, rule.event) || stageOf(e) === -1) break;
        const earlier = before.filter((b) => is(b, rule.event) && stageOf(b) !== -1).map(stageOf);
        if (earlier.some((st) => st > stageOf(e))) bad.push(j);
        break;
      }
      case 'sequence': {
        const num = (x: string) => (/^\d+$/.test(key(x)) ? Number(key(x)) : undefined);
        const value = num(e);
        if (value === undefined) break;
        const earlier = before.map(num).filter((x): x is number => x !== undefined);
        const prev = earlier.at(-1);
        if (
          prev === undefined
            ? rule.start !== undefined && value !== rule.start
            : rule.step !== undefined
              ? value !== prev + rule.step
              : value <= prev
        )
          bad.push(j);
        break;
      }
    }
  }
  return [...new Set(bad)].sort((a, b) => a - b);
}

/**
 * The naive checker of a rule with a scope key: events are `type:key@scope`
 * (no `@`: no scope); each scope's events are checked alone, as a stream of
 * their own, and the positions mapped back.
 */
export function scopedReferenceViolations(rule: Rule, events: string[]): number[] {
  const scopes = new Set(events.filter((e) => e.includes('@')).map((e) => e.split('@')[1] as string));
  const bad: number[] = [];
  for (const scope of scopes) {
    const positions = events.flatMap((e, i) => (e.endsWith(`@${scope}`) ? [i] : []));
    const mine = positions.map((i) => (events[i] as string).split('@')[0] as string);
    for (const j of referenceViolations(rule, mine)) bad.push(positions[j] as number);
  }
  return bad.sort((a, b) => a - b);
}
