import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assembles,
  atMostOne,
  type CheckedEvent,
  checkRule,
  eventually,
  exactlyOne,
  firstEvent,
  never,
  pairedBy,
  precedes,
  progression,
  type Rule,
  sequence,
  terminal,
} from '../../src/contracts/index.js';
import { referenceViolations, scopedReferenceViolations } from './reference-checker.js';

const m = { name: 'r', description: 'test rule', source: 'test', scope: 'stream' as const };
const alphabet = ['a', 'b', 'c', 'd'];
const rulesUnderTest: Rule[] = [
  precedes('a', 'b', m),
  exactlyOne(['a', 'c'], m),
  atMostOne('b', m),
  terminal(['c'], { trailers: ['d'] }, m),
  pairedBy('a', ['b', 'c'], 'k', m),
  pairedBy('a', ['b'], 'k', m, { abandonedBy: 'd' }),
  never('b', { after: 'c' }, m),
  never('*', { after: 'd' }, m),
  never('b', { after: 'c', until: 'a' }, m),
  eventually('d', { after: 'a' }, m),
  firstEvent('a', m),
  sequence('k', { start: 1, step: 1 }, m),
  sequence('k', {}, m),
  progression('a', { key: 'none', field: 'k', stages: [['1'], ['2', '3']] }, m),
];

const eventArb = fc.tuple(fc.constantFrom(...alphabet), fc.constantFrom('1', '2', '3', 'x')).map(([t, k]) => `${t}:${k}`);
// Numeric keys become numbers, so the sequence rule has values to check; `x` is an event without one.
const toChecked = (events: string[]): CheckedEvent[] =>
  events.map((e) => {
    const k = e.split(':')[1] as string;
    return { type: e.split(':')[0] as string, data: { k: /^\d+$/.test(k) ? Number(k) : k } };
  });

describe('the rule checker', () => {
  it.each(rulesUnderTest.map((r) => [r.kind, r] as const))('agrees with a brute-force reference on random sequences: %s', (_kind, rule) => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 12 }), (events) => {
        const found = checkRule(rule, toChecked(events), { start: 0, end: events.length }).map((v) => v.eventIndex);
        expect([...new Set(found)].sort((a, b) => a - b)).toEqual(referenceViolations(rule, events));
      }),
      { numRuns: 400 },
    );
  });

  // Streams of two or three sessions interleaved, and events that belong to none (a connection's preamble).
  const scopedEventArb = fc.tuple(eventArb, fc.constantFrom('@s1', '@s2', '@s3', '@s1', '@s2', '')).map(([e, scope]) => `${e}${scope}`);
  const toScoped = (events: string[]): CheckedEvent[] =>
    toChecked(events.map((e) => e.split('@')[0] as string)).map((e, i) => {
      const scope = (events[i] as string).split('@')[1];
      return { ...e, data: { ...(e.data as object), ...(scope ? { session: { id: scope } } : {}) } };
    });

  it.each(rulesUnderTest.map((r) => [r.kind, { ...r, by: 'session.id' }] as const))(
    'scoped per session, agrees with a naive per-scope checker on random multi-scope streams: %s',
    (_kind, rule) => {
      fc.assert(
        fc.property(fc.array(scopedEventArb, { maxLength: 16 }), (events) => {
          const found = checkRule(rule, toScoped(events), { start: 0, end: events.length }).map((v) => v.eventIndex);
          expect([...new Set(found)].sort((a, b) => a - b)).toEqual(scopedReferenceViolations(rule, events));
        }),
        { numRuns: 400 },
      );
    },
  );

  it('catches a violation within one scope while another scope is fine, and leaves a break across scopes alone', () => {
    const rule = never('b', { after: 'c' }, { ...m, by: 'session.id' });
    // s1 ends (c), then s2 goes on (b): fine. s1 going on after its own end is not.
    const events = toScoped(['a:1@s1', 'a:1@s2', 'c:1@s1', 'b:1@s2', 'b:1@s1']);
    const found = checkRule(rule, events, { start: 0, end: events.length });
    expect(found.map((v) => v.eventIndex)).toEqual([4]);
    expect(checkRule({ ...rule, by: undefined }, events, { start: 0, end: events.length }).map((v) => v.eventIndex)).toEqual([3, 4]);
  });

  it('checks only inside its segment', () => {
    const events = toChecked(['b:1', 'a:1', 'b:1']);
    expect(checkRule(precedes('a', 'b', m), events, { start: 1, end: 3 })).toEqual([]);
    expect(checkRule(precedes('a', 'b', m), events, { start: 0, end: 3 }).map((v) => v.eventIndex)).toEqual([0]);
  });
});

describe('keys and streamed text', () => {
  const ev = (type: string, data: Record<string, unknown>) => ({ type, data });

  it('progression takes its key from whichever of a|b the event has', () => {
    const rule = progression('*', { key: 'turnId|turn.id', field: 'kind', stages: [['start'], ['item'], ['end']] }, m);
    const events = [
      ev('x', { kind: 'start', turn: { id: 't1' } }),
      ev('x', { kind: 'item', turnId: 't1' }),
      ev('x', { kind: 'end', turn: { id: 't1' } }),
      ev('x', { kind: 'start', turn: { id: 't2' } }),
      ev('x', { kind: 'item', turnId: 't1' }),
    ];
    expect(checkRule(rule, events, { start: 0, end: events.length }).map((v) => v.eventIndex)).toEqual([4]);
  });

  it('progression reads its field from whichever of a|b the event has: a task, then its status updates', () => {
    const rule = progression(
      '*',
      { key: 'task.id|update.taskId', field: 'task.state|update.state', stages: [['new'], ['busy'], ['done']] },
      m,
    );
    const events = [
      ev('task', { task: { id: 't1', state: 'new' } }),
      ev('update', { update: { taskId: 't1', state: 'busy' } }),
      ev('update', { update: { taskId: 't1', state: 'done' } }),
      ev('update', { update: { taskId: 't1', state: 'busy' } }),
    ];
    expect(checkRule(rule, events, { start: 0, end: events.length }).map((v) => v.eventIndex)).toEqual([3]);
  });

  it('assembles: pieces add up to the whole text, and none comes after it', () => {
    const rule = assembles({ event: 'd', key: 'k', field: 'text' }, { event: 'w', key: 'k', field: 'text' }, m);
    const ok = [
      ev('d', { k: 1, text: 'Hel' }),
      ev('d', { k: 2, text: 'Bye' }),
      ev('d', { k: 1, text: 'lo' }),
      ev('w', { k: 1, text: 'Hello' }),
    ];
    expect(checkRule(rule, ok, { start: 0, end: ok.length })).toEqual([]);
    const late = [...ok, ev('d', { k: 1, text: '!' })];
    const swapped = [ok[2], ok[0], ok[3]].filter((e) => e !== undefined);
    expect(checkRule(rule, late, { start: 0, end: late.length }).map((v) => v.message)).toEqual(['a delta of k=1 after its whole text']);
    expect(checkRule(rule, swapped, { start: 0, end: swapped.length }).map((v) => v.eventIndex)).toEqual([2]);
  });

  it('assembles as JSON: pieces joined are one JSON document when their key closes; no pieces, or empty ones, are no input', () => {
    const rule = assembles({ event: 'd', key: 'k', field: 'json' }, { event: 'stop', key: 'k', parses: 'json' }, m);
    const pieces = (k: number, ...parts: string[]) => parts.map((json) => ev('d', { k, json }));
    const ok = [
      ...pieces(1, '{"city": ', '"Par', 'is"}'),
      ev('stop', { k: 1 }),
      ...pieces(2, ''),
      ev('stop', { k: 2 }),
      ev('stop', { k: 3 }),
    ];
    expect(checkRule(rule, ok, { start: 0, end: ok.length })).toEqual([]);
    const twice = [...pieces(1, '{"city": ', '{"city": ', '"Paris"}'), ev('stop', { k: 1 })];
    const found = checkRule(rule, twice, { start: 0, end: twice.length });
    expect(found.map((v) => v.eventIndex)).toEqual([3]);
    expect(found[0]?.message).toMatch(/^the deltas of k=1 add up to "\{\\"city\\": \{\\"city\\": \\"Paris\\"\}", not JSON: /);
  });
});
