import { type Cassette, type Interaction, loadCassette, RECORDING_INTERRUPTED } from '../cassette/index.js';
import { UsageError } from '../errors.js';
import { isCassetteFile, listFiles } from '../fs/list-files.js';
import { pickShard, type Shard } from '../fs/shard.js';
import { registeredPacks } from './catalogue.js';
import { checkEvents, type PayloadChecks, type Window } from './check-events.js';
import { jsonRpcSessions, type SessionKey } from './jsonrpc-sessions.js';
import type { Pack } from './pack.js';
import { loadPacks, resolvePacksSync } from './pack-file.js';
import type { CheckedCassette, RuleResult, VerifyReport } from './report-types.js';
import { type CheckedEvent, compileSelector, valueAtAny } from './selectors.js';
import { type ParsedStream, parseStreams, type StreamUnderCheck, streamsOf } from './stream-events.js';

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
      if (pack.profile || pack.session || !onRoute(pack, stream.interaction.request.path)) continue;
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
  for (const pack of registeredPacks()) {
    const fit = pack.session && !pack.profile ? sessionFit(cassette, pack) : undefined;
    if (fit) why.set(pack.name, fit);
  }
  return { bySeq, chosen: [...why].map(([pack, reason]) => ({ pack, why: reason })) };
}

/** Why a JSON-RPC session pack fits a cassette: a session whose message types it knows (three at least), or undefined. */
function sessionFit(cassette: Cassette, pack: Pack): string | undefined {
  for (const session of jsonRpcSessions(cassette, pack.session as SessionKey)) {
    const types = new Set(session.events.map((e) => e.type));
    const known = [...types].filter((t) => pack.payloads[t] || pack.results?.[t.replace(/^client:/, '')]).length;
    // A header the client sends on every request already names its protocol: two known types are enough there.
    if (known >= (pack.session?.issuedBy === 'client' ? 2 : 3))
      return `${known} of ${types.size} message types of session ${session.key} known`;
  }
  return undefined;
}

/** A session pack's verdicts: each session of the cassette checked as one stream of both sides' messages. */
function checkSessions(cassette: Cassette, name: string, pack: Pack): Omit<RuleResult, 'pack'>[] {
  return jsonRpcSessions(cassette, pack.session as SessionKey).flatMap((s) =>
    checkEvents(s.events, pack, {
      cassette: name,
      interaction: s.first.seq,
      seqs: s.seqs,
      // The standalone GET stream ends when the session does, by design: only a request's own stream cut short hides its answer.
      cutShort: s.interactions.some((i) => i.request.method !== 'GET' && cutShort(i)),
    }),
  );
}

/**
 * Checks every stream of a cassette against its packs: `packs` when given,
 * else `meta.packs`, else the packs its traffic fits (`choosePacks`).
 */
export function verifyCassette(cassette: Cassette, name: string, packRefs?: readonly (string | Pack)[]): CheckedCassette {
  const named = packRefs ?? cassette.meta.packs;
  const parsed = parseStreams(cassette);
  const auto = named === undefined || named.length === 0 ? choosePacks(cassette, parsed) : undefined;
  const packs = auto
    ? registeredPacks().filter((p) => auto.chosen.some((c) => c.pack === p.name))
    : (named ?? []).flatMap(resolvePacksSync);
  const checked: CheckedCassette = {
    cassette: name,
    packs: packs.map((p) => p.name),
    ...(auto ? { chosen: auto.chosen } : {}),
    streams: 0,
    events: 0,
    rules: [],
  };
  const byRule = new Map<string, RuleResult>();
  const payloadChecks: PayloadChecks = new Map();
  const add = (pack: Pack, r: Omit<RuleResult, 'pack'>) => {
    const key = `${pack.name} ${r.rule}`;
    const entry = byRule.get(key) ?? { pack: pack.name, rule: r.rule, violations: [], notObserved: [] };
    entry.violations.push(...r.violations);
    entry.notObserved.push(...r.notObserved);
    byRule.set(key, entry);
  };
  for (const pack of packs) {
    if (pack.session) {
      for (const r of checkSessions(cassette, name, pack)) add(pack, r);
      continue;
    }
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
          cutShort: cutShort(stream.interaction),
          namedBefore: namedBefore(cassette, stream.interaction),
          seenElsewhere: seenElsewhere(parsed, stream),
        },
        payloadChecks,
      ))
        add(pack, r);
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
  const packs = options.packs ? (await Promise.all(options.packs.map(loadPacks))).flat() : undefined;
  const all = (await Promise.all(paths.map((p) => listFiles(p, isCassetteFile)))).flat();
  if (all.length === 0) throw new UsageError(`no cassette (*.yaml) under ${paths.join(', ')}`);
  const files = pickShard(all, options.shard, (f) => f);
  // A matrix wider than the cassettes leaves a job nothing to check, which is no failure of the check.
  if (files.length === 0) return { cassettes: [], violations: [], notObserved: [] };
  const cassettes: CheckedCassette[] = [];
  for (const file of files) cassettes.push(verifyCassette(await loadCassette(file), file, packs));
  if (!options.allowEmpty && cassettes.every((c) => c.rules.length === 0)) {
    throw new UsageError(
      `0 rules checked in ${files.length} cassettes: they name no pack (meta.packs) and no built-in pack fits their traffic; pass --pack NAME, or --allow-empty to accept an empty check`,
    );
  }
  return {
    cassettes,
    violations: cassettes.flatMap((c) => c.rules.flatMap((r) => r.violations)),
    notObserved: cassettes.flatMap((c) => c.rules.flatMap((r) => r.notObserved)),
  };
}

/**
 * Whether a stream ended before its server ended it: the client closed it,
 * the recording proxy stopped, or the recorder died (`bench recover`). A
 * stream the server ended, or one still open at a clean save, is whole.
 */
function cutShort(interaction: Interaction): boolean {
  const live = interaction.response?.stream ?? interaction.response?.websocket;
  if (!live) return false;
  return live.end === 'client-closed' || live.end === 'proxy-closed' || (live.end === 'broken' && live.error === RECORDING_INTERRUPTED);
}

export { checkEvents, type PayloadChecks } from './check-events.js';
export type { CheckedCassette, RuleResult, VerifyReport, Violation, ViolationCode } from './report-types.js';

/**
 * For an SSE stream, whether a request before it named a key (a session's id in its path): the stream is a
 * subscription that opened on a session already under way, and its earlier events are not in it. A WebSocket
 * session is the whole conversation, both sides: nothing before it.
 */
function namedBefore(cassette: Cassette, stream: Interaction): ((key: string) => boolean) | undefined {
  if (!stream.response?.stream) return undefined;
  const paths = cassette.interactions.filter((i) => i.seq < stream.seq).map((i) => i.request.path);
  return (key) => key.length >= 6 && paths.some((p) => p.includes(key));
}

/** When (recorded ms) a stream's event at `position` came: its SSE item's or frame's own time. */
function timeAt(interaction: Interaction, position: number): number {
  const response = interaction.response;
  return (response?.stream?.events[position] ?? response?.websocket?.frames[position])?.at ?? Number.POSITIVE_INFINITY;
}

/** `Window.seenElsewhere` for one stream: the other streams of its cassette, searched up to the time of the event. */
function seenElsewhere(parsed: Map<Interaction, ParsedStream>, stream: StreamUnderCheck): NonNullable<Window['seenElsewhere']> {
  return (selector, byPaths, key, eventIndex) => {
    const before = timeAt(stream.interaction, stream.positions[eventIndex] ?? eventIndex);
    const wanted = compileSelector(selector);
    for (const [interaction, other] of parsed) {
      if (interaction === stream.interaction) continue;
      for (let k = 0; k < other.events.length; k++) {
        if (timeAt(interaction, other.positions[k] ?? k) >= before) break;
        const e = other.events[k] as CheckedEvent;
        if (wanted.matches(e) && valueAtAny(e.data, byPaths) === key) return true;
      }
    }
    return false;
  };
}
