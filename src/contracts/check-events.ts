import { payloadViolations } from './check-payloads.js';
import { checkRule, groupByScope, type RuleViolation, type ScopeGroups, type Segment } from './check-rules.js';
import type { Pack } from './pack.js';
import type { RuleResult, Violation, ViolationCode } from './report-types.js';
import type { Rule } from './rules.js';
import { type CheckedEvent, valueAtAny } from './selectors.js';

function excerpt(events: readonly CheckedEvent[], positions: readonly number[], index: number): string[] {
  const from = Math.max(0, index - 2);
  const to = Math.min(events.length, index + 3);
  const lines: string[] = [];
  for (let i = from; i < to; i++)
    lines.push(`${i === index ? '>' : ' '} ${String(positions[i]).padStart(4)} ${(events[i] as CheckedEvent).type}`);
  return lines;
}

/**
 * Payload checks made on one stream, by the pack that made them: packs that share their schemas (omnigent's stream
 * and native-tui packs) then check each event once, which is most of what a check of a long stream costs.
 */
export type PayloadChecks = Map<readonly CheckedEvent[], { pack: Pack; violations: Violation[] }[]>;

const sameSchemas = (a: Pack, b: Pack) =>
  a.payloads === b.payloads && a.results === b.results && a.resultChecks === b.resultChecks && a.openVocabulary === b.openVocabulary;

/** Checks events against one pack: payload schemas, then every rule over its scope. */
export function checkEvents(
  events: readonly CheckedEvent[],
  pack: Pack,
  where: { cassette: string; interaction: number; turns?: Segment[]; positions?: number[]; seqs?: number[] } & Window,
  done?: PayloadChecks,
): Omit<RuleResult, 'pack'>[] {
  const positions = where.positions ?? events.map((_, i) => i);
  const make = (code: ViolationCode, rule: string, index: number, message: string): Violation => ({
    code,
    pack: pack.name,
    rule,
    cassette: where.cassette,
    interaction: where.seqs?.[index] ?? where.interaction,
    eventIndex: positions[index] ?? index,
    message,
    excerpt: excerpt(events, positions, index),
  });
  const results: Omit<RuleResult, 'pack'>[] = [];
  const earlier = done?.get(events)?.find((c) => sameSchemas(c.pack, pack));
  if (earlier)
    results.push({ rule: 'payload-schema', violations: earlier.violations.map((v) => ({ ...v, pack: pack.name })), notObserved: [] });
  else if (Object.keys(pack.payloads).length > 0) {
    const violations = payloadViolations(events, pack, make);
    results.push({ rule: 'payload-schema', violations, notObserved: [] });
    if (done) done.set(events, [...(done.get(events) ?? []), { pack, violations }]);
  }
  results.push(...checkPackRules(events, pack, where, make));
  return results;
}

/** How much of the server's history a recorded stream shows: a window may open late and close early. */
export interface Window {
  /** The stream ended before its server ended it (the client closed it, a stop cut it). */
  cutShort?: boolean;
  /** Whether the recording named this key (a session id) before the stream opened: its earlier events were not watched. */
  namedBefore?: ((key: string) => boolean) | undefined;
  /**
   * Whether another stream or connection of the recording carried an event matching `selector` for this key before
   * the event at `eventIndex`: a client that sends `turn/start` on one connection and hears `turn/started` on another.
   */
  seenElsewhere?: ((selector: string, byPaths: readonly string[], key: unknown, eventIndex: number) => boolean) | undefined;
}

/**
 * Every rule of a pack over its segments. A stream is a window on the
 * server's history, and a rule broken only for want of an event outside it
 * was not observed: one the rule waits for, in the segment a stream cut short
 * ends in (the weak reading of "eventually" on a finite trace, unless the
 * rule says `mustHoldAtClose`), or an earlier one, for a key the recording
 * named before the stream opened.
 */
function checkPackRules(
  events: readonly CheckedEvent[],
  pack: Pack,
  where: { turns?: Segment[] } & Window,
  make: (code: ViolationCode, rule: string, index: number, message: string) => Violation,
): Omit<RuleResult, 'pack'>[] {
  const turns = where.turns ?? [{ start: 0, end: events.length }];
  const whole = [{ start: 0, end: events.length }];
  // Rules scoped by the same key share one pass that shares the events out.
  const shared = new Map<string, ScopeGroups>();
  const groupsFor = (by: string | undefined, seg: Segment) => {
    if (by === undefined) return undefined;
    const key = `${by}\0${seg.start}\0${seg.end}`;
    let g = shared.get(key);
    if (!g) shared.set(key, (g = groupByScope(events, seg, by)));
    return g;
  };
  return pack.rules.map((rule) => {
    const result: Omit<RuleResult, 'pack'> = { rule: rule.name, violations: [], notObserved: [] };
    for (const seg of rule.scope === 'stream' ? whole : turns)
      for (const v of checkRule(rule, events, seg, groupsFor(rule.by, seg))) {
        if (heldElsewhere(v, rule, events, where)) continue;
        const unseen = outsideWindow(v, rule, events, seg, where);
        if (unseen) result.notObserved.push(make('not_observed', rule.name, v.eventIndex, `not observed: ${v.message}, but ${unseen}`));
        else result.violations.push(make('rule_broken', rule.name, v.eventIndex, v.message));
      }
    return result;
  });
}

/** Why a violation lies outside what the stream could show, or undefined when it is a violation. */
function outsideWindow(v: RuleViolation, rule: Rule, events: readonly CheckedEvent[], seg: Segment, where: Window): string | undefined {
  if (v.needs === 'later' && where.cutShort && !rule.mustHoldAtClose && seg.end === events.length) return 'the stream was cut short';
  if (v.needs !== 'earlier' || rule.by === undefined || !where.namedBefore) return undefined;
  const key = valueAtAny(events[v.eventIndex]?.data, rule.by.split('|'));
  return key !== undefined && key !== null && where.namedBefore(String(key)) ? `the stream opened after ${key} began` : undefined;
}

/** A rule that needs an earlier event, which the recording holds on another of the client's connections: it holds. */
function heldElsewhere(v: RuleViolation, rule: Rule, events: readonly CheckedEvent[], where: Window): boolean {
  const needed = rule.kind === 'precedes' ? rule.earlier : rule.kind === 'pairedBy' ? rule.start : undefined;
  if (v.needs !== 'earlier' || needed === undefined || rule.by === undefined || !where.seenElsewhere) return false;
  const paths = rule.by.split('|');
  const key = valueAtAny(events[v.eventIndex]?.data, paths);
  return key !== undefined && key !== null && where.seenElsewhere(needed, paths, key, v.eventIndex);
}
