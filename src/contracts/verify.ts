import type { z } from 'zod';
import { type Cassette, loadCassette } from '../cassette/index.js';
import { UsageError } from '../errors.js';
import { isCassetteFile, listFiles } from '../fs/list-files.js';
import { checkRule } from './check-rules.js';
import type { Pack } from './pack.js';
import { findPack } from './packs/index.js';
import type { CheckedEvent } from './selectors.js';
import { streamsOf } from './stream-events.js';

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

/** Checks events against one pack: payload schemas, then every rule over its scope. */
export function checkEvents(
  events: readonly CheckedEvent[],
  pack: Pack,
  where: { cassette: string; interaction: number; turns?: { start: number; end: number }[]; positions?: number[] },
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
  const payloadViolations: Violation[] = [];
  if (Object.keys(pack.payloads).length > 0) {
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
  }
  const turns = where.turns ?? [{ start: 0, end: events.length }];
  for (const rule of pack.rules) {
    const segments = rule.scope === 'stream' ? [{ start: 0, end: events.length }] : turns;
    const violations = segments
      .flatMap((seg) => checkRule(rule, events, seg))
      .map((v) => make('rule_broken', rule.name, v.eventIndex, v.message));
    results.push({ rule: rule.name, violations });
  }
  return results;
}

/** Checks every stream of a cassette against its packs (`meta.packs`, or `packs` when given). */
export function verifyCassette(cassette: Cassette, name: string, packNames?: readonly string[]): CheckedCassette {
  const packs = (packNames ?? cassette.meta.packs ?? []).map(findPack);
  const checked: CheckedCassette = { cassette: name, packs: packs.map((p) => p.name), streams: 0, events: 0, rules: [] };
  const byRule = new Map<string, { pack: string; rule: string; violations: Violation[] }>();
  for (const pack of packs) {
    const routes = pack.routes;
    const mine = (path: string) => !routes || routes.some((r) => r.test(path.split('?')[0] ?? ''));
    for (const stream of streamsOf(cassette, pack.turnStarts).filter((s) => mine(s.interaction.request.path))) {
      for (const r of checkEvents(stream.events, pack, {
        cassette: name,
        interaction: stream.interaction.seq,
        turns: stream.turns,
        positions: stream.positions,
      })) {
        const key = `${pack.name} ${r.rule}`;
        const entry = byRule.get(key) ?? { pack: pack.name, rule: r.rule, violations: [] };
        entry.violations.push(...r.violations);
        byRule.set(key, entry);
      }
    }
  }
  for (const stream of streamsOf(cassette, [])) {
    checked.streams += 1;
    checked.events += stream.events.length;
  }
  checked.rules = [...byRule.values()];
  return checked;
}

/** Verifies every cassette under the given paths. */
export async function verifyPaths(paths: readonly string[], options: { packs?: readonly string[] } = {}): Promise<VerifyReport> {
  for (const p of options.packs ?? []) findPack(p);
  const files = (await Promise.all(paths.map((p) => listFiles(p, isCassetteFile)))).flat();
  if (files.length === 0) throw new UsageError(`no cassette (*.yaml) under ${paths.join(', ')}`);
  const cassettes: CheckedCassette[] = [];
  for (const file of files) cassettes.push(verifyCassette(await loadCassette(file), file, options.packs));
  return { cassettes, violations: cassettes.flatMap((c) => c.rules.flatMap((r) => r.violations)) };
}
