import type { z } from 'zod';
import { type Cassette, type Interaction, loadCassette } from '../cassette/index.js';
import { UsageError } from '../errors.js';
import { isCassetteFile, listFiles } from '../fs/list-files.js';
import { pickShard, type Shard } from '../fs/shard.js';
import { registeredPacks } from './catalogue.js';
import { checkRule, groupByScope, type ScopeGroups, type Segment } from './check-rules.js';
import type { Pack } from './pack.js';
import { loadPack, resolvePackSync } from './pack-file.js';
import type { CheckedEvent } from './selectors.js';
import { type ParsedStream, parseStreams, type StreamUnderCheck, streamsOf } from './stream-events.js';

export type ViolationCode = 'rule_broken' | 'payload_invalid' | 'unknown_event';

/** One contract violation, as data; renderers turn it into text, JSON or JUnit. */
export interface Violation {
  code: ViolationCode;
  pack: string;
  rule: string;
  cassette: string;
  /** The seq of the interaction whose stream broke the rule. */
  interaction: number;
  /** Position of the offending event in that stream. */
  eventIndex: number;
  message: string;
  /** The events around it, the offending one marked with `>`. */
  excerpt: string[];
}

export interface CheckedCassette {
  cassette: string;
  packs: string[];
  /** Packs chosen by the cassette's traffic (it named none), each with why. */
  chosen?: { pack: string; why: string }[];
  streams: number;
  events: number;
  /** Every (pack, rule) checked on this cassette, with its violations: one JUnit testcase each. */
  rules: { pack: string; rule: string; violations: Violation[] }[];
}

export interface VerifyReport {
  cassettes: CheckedCassette[];
  violations: Violation[];
}

function excerpt(events: readonly CheckedEvent[], positions: readonly number[], index: number): string[] {
  const from = Math.max(0, index - 2);
  const to = Math.min(events.length, index + 3);
  const lines: string[] = [];
  for (let i = from; i < to; i++)
    lines.push(`${i === index ? '>' : ' '} ${String(positions[i]).padStart(4)} ${(events[i] as CheckedEvent).type}`);
  return lines;
}

/** `what.path: message` for the first issue of a failed payload check. */
function firstIssue(what: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue?.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('') ?? '';
  return `${what}${path}: ${issue?.message ?? 'invalid'}`;
}

/**
 * Payload checks made on one stream, by the pack that made them: packs that share their schemas (omnigent's stream
 * and native-tui packs) then check each event once, which is most of what a check of a long stream costs.
 */
export type PayloadChecks = Map<readonly CheckedEvent[], { pack: Pack; violations: Violation[] }[]>;

const sameSchemas = (a: Pack, b: Pack) => a.payloads === b.payloads && a.results === b.results && a.openVocabulary === b.openVocabulary;

/** Checks events against one pack: payload schemas, then every rule over its scope. */
export function checkEvents(
  events: readonly CheckedEvent[],
  pack: Pack,
  where: { cassette: string; interaction: number; turns?: { start: number; end: number }[]; positions?: number[] },
  done?: PayloadChecks,
): { rule: string; violations: Violation[] }[] {
  const positions = where.positions ?? events.map((_, i) => i);
  const make = (code: ViolationCode, rule: string, index: number, message: string): Violation => ({
    code,
    pack: pack.name,
    rule,
    cassette: where.cassette,
    interaction: where.interaction,
    eventIndex: positions[index] ?? index,
    message,
    excerpt: excerpt(events, positions, index),
  });
  const results: { rule: string; violations: Violation[] }[] = [];
  const earlier = done?.get(events)?.find((c) => sameSchemas(c.pack, pack));
  if (earlier) results.push({ rule: 'payload-schema', violations: earlier.violations.map((v) => ({ ...v, pack: pack.name })) });
  else if (Object.keys(pack.payloads).length > 0) {
    const payloadViolations: Violation[] = [];
    const unknown = new Set<string>();
    // Client request id → method, so a response's result is checked against what it answers.
    const asked = new Map<string, string>();
    events.forEach((e, i) => {
      if (e.type === ':comment') return;
      if (pack.results) {
        const m = e.data as { id?: unknown; method?: unknown; result?: unknown } | undefined;
        if (e.type.startsWith('client:') && typeof m?.method === 'string' && m.id !== undefined) asked.set(JSON.stringify(m.id), m.method);
        const answered = e.type === 'response' && m?.id !== undefined ? asked.get(JSON.stringify(m.id)) : undefined;
        const schema = answered === undefined || !('result' in (m as object)) ? undefined : pack.results[answered];
        const r = schema?.safeParse(m?.result);
        if (r && !r.success)
          payloadViolations.push(make('payload_invalid', 'payload-schema', i, firstIssue(`response to ${answered} result`, r.error)));
      }
      const schema = pack.payloads[e.type];
      if (!schema) {
        if (pack.openVocabulary) return;
        if (!unknown.has(e.type))
          payloadViolations.push(make('unknown_event', 'known-event-types', i, `unknown event type ${e.type}: not in ${pack.name}`));
        unknown.add(e.type);
        return;
      }
      const r = schema.safeParse(e.data);
      if (!r.success) payloadViolations.push(make('payload_invalid', 'payload-schema', i, firstIssue(`${e.type} data`, r.error)));
    });
    results.push({ rule: 'payload-schema', violations: payloadViolations });
    if (done) done.set(events, [...(done.get(events) ?? []), { pack, violations: payloadViolations }]);
  }
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
  for (const rule of pack.rules) {
    const segments = rule.scope === 'stream' ? whole : turns;
    const violations = segments
      .flatMap((seg) => checkRule(rule, events, seg, groupsFor(rule.by, seg)))
      .map((v) => make('rule_broken', rule.name, v.eventIndex, v.message));
    results.push({ rule: rule.name, violations });
  }
  return results;
}

/** Which event types of a stream a pack knows a payload schema for. */
function vocabularyFit(pack: Pack, stream: StreamUnderCheck): { known: number; types: number } {
  const types = new Set(stream.events.map((e) => e.type).filter((t) => t !== ':comment' && t !== ':close'));
  let known = 0;
  for (const t of types) if (pack.payloads[t]) known++;
  return { known, types: types.size };
}

const onRoute = (pack: Pack, path: string) => !pack.routes || pack.routes.some((r) => r.test(path.split('?')[0] ?? ''));

/**
 * The packs for a cassette that names none (a plain `bench proxy` recording):
 * for each stream, the built-in packs whose route it is on and whose payload
 * schemas know most of its event types (at least half, and two; for an
 * open vocabulary, at least three); profiles
 * of another pack's protocol are never guessed. Per stream seq.
 */
export function choosePacks(
  cassette: Cassette,
  parsed: Map<Interaction, ParsedStream> = parseStreams(cassette),
): { bySeq: Map<number, Pack[]>; chosen: { pack: string; why: string }[] } {
  const bySeq = new Map<number, Pack[]>();
  const why = new Map<string, string>();
  for (const stream of streamsOf(cassette, [], parsed)) {
    let best: { pack: Pack; known: number; types: number }[] = [];
    for (const pack of registeredPacks()) {
      if (pack.profile || !onRoute(pack, stream.interaction.request.path)) continue;
      const fit = vocabularyFit(pack, stream);
      // An open vocabulary describes part of a larger protocol: a few of its types are its fingerprint.
      if (fit.known < (pack.openVocabulary ? 3 : 2) || (!pack.openVocabulary && fit.known * 2 < fit.types)) continue;
      const score = pack.openVocabulary ? fit.known / Math.max(fit.known, Object.keys(pack.payloads).length) : fit.known / fit.types;
      const top = best[0] ? best[0].known / best[0].types : 0;
      if (score > top) best = [{ pack, ...fit }];
      else if (score === top) best.push({ pack, ...fit });
    }
    if (best.length === 0) continue;
    bySeq.set(
      stream.interaction.seq,
      best.map((b) => b.pack),
    );
    for (const b of best)
      if (!why.has(b.pack.name))
        why.set(
          b.pack.name,
          `${b.known} of ${b.types} event types of ${stream.interaction.request.path.split('?')[0]} known${b.pack.routes ? ', on its route' : ''}`,
        );
  }
  return { bySeq, chosen: [...why].map(([pack, reason]) => ({ pack, why: reason })) };
}

/**
 * Checks every stream of a cassette against its packs: `packs` when given,
 * else `meta.packs`, else the packs its traffic fits (`choosePacks`).
 */
export function verifyCassette(cassette: Cassette, name: string, packRefs?: readonly (string | Pack)[]): CheckedCassette {
  const named = packRefs ?? cassette.meta.packs;
  const parsed = parseStreams(cassette);
  const auto = named === undefined || named.length === 0 ? choosePacks(cassette, parsed) : undefined;
  const packs = auto ? registeredPacks().filter((p) => auto.chosen.some((c) => c.pack === p.name)) : (named ?? []).map(resolvePackSync);
  const checked: CheckedCassette = {
    cassette: name,
    packs: packs.map((p) => p.name),
    ...(auto ? { chosen: auto.chosen } : {}),
    streams: 0,
    events: 0,
    rules: [],
  };
  const byRule = new Map<string, { pack: string; rule: string; violations: Violation[] }>();
  const payloadChecks: PayloadChecks = new Map();
  for (const pack of packs) {
    // A chosen pack checks only the streams it was chosen for.
    const mine = (s: StreamUnderCheck) =>
      auto ? (auto.bySeq.get(s.interaction.seq) ?? []).includes(pack) : onRoute(pack, s.interaction.request.path);
    for (const stream of streamsOf(cassette, pack.turnStarts, parsed).filter(mine)) {
      for (const r of checkEvents(
        stream.events,
        pack,
        {
          cassette: name,
          interaction: stream.interaction.seq,
          turns: stream.turns,
          positions: stream.positions,
        },
        payloadChecks,
      )) {
        const key = `${pack.name} ${r.rule}`;
        const entry = byRule.get(key) ?? { pack: pack.name, rule: r.rule, violations: [] };
        entry.violations.push(...r.violations);
        byRule.set(key, entry);
      }
    }
  }
  for (const stream of parsed.values()) {
    checked.streams += 1;
    checked.events += stream.events.length;
  }
  checked.rules = [...byRule.values()];
  return checked;
}

/**
 * Verifies every cassette under the given paths. A run that checked no rule
 * at all is refused (a check that cannot fail), unless `allowEmpty`.
 */
export async function verifyPaths(
  paths: readonly string[],
  options: { packs?: readonly (string | Pack)[]; allowEmpty?: boolean; shard?: Shard } = {},
): Promise<VerifyReport> {
  // Built-in names, pack files and modules, each loaded (and refused) once, before any cassette is read.
  const packs = options.packs ? await Promise.all(options.packs.map(loadPack)) : undefined;
  const all = (await Promise.all(paths.map((p) => listFiles(p, isCassetteFile)))).flat();
  if (all.length === 0) throw new UsageError(`no cassette (*.yaml) under ${paths.join(', ')}`);
  const files = pickShard(all, options.shard, (f) => f);
  // A matrix wider than the cassettes leaves a job nothing to check, which is no failure of the check.
  if (files.length === 0) return { cassettes: [], violations: [] };
  const cassettes: CheckedCassette[] = [];
  for (const file of files) cassettes.push(verifyCassette(await loadCassette(file), file, packs));
  if (!options.allowEmpty && cassettes.every((c) => c.rules.length === 0)) {
    throw new UsageError(
      `0 rules checked in ${files.length} cassettes: they name no pack (meta.packs) and no built-in pack fits their traffic; pass --pack NAME, or --allow-empty to accept an empty check`,
    );
  }
  return { cassettes, violations: cassettes.flatMap((c) => c.rules.flatMap((r) => r.violations)) };
}
