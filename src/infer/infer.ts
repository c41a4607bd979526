import { parsePackTexts, type TurnStart, verifyCassette } from '../contracts/index.js';
import { UsageError } from '../errors.js';
import { assembleCandidates } from './assemble-candidates.js';
import type { Candidate } from './candidate.js';
import { jsonRpcCandidates } from './jsonrpc-candidates.js';
import { keyedStreams, typesByKey } from './keyed-events.js';
import { kindCandidates } from './kind-candidates.js';
import { orderCandidates } from './order-candidates.js';
import { pairCandidates } from './pair-candidates.js';
import { learnPayloads, violatedType } from './payloads.js';
import { progressionCandidates } from './progression-candidates.js';
import { type LearnedStream, learnedStreams, mergeTemplates, type Recording, templateRegex } from './recordings.js';
import { labeller } from './refine.js';
import { type InferredPack, renderInferredPacks } from './render.js';
import { holdingCandidates, named, withoutImplied, withoutTurnEchoes } from './select.js';
import { sequenceCandidates } from './sequence-candidates.js';
import { sessionHeader, sessionStreams } from './sessions.js';
import { asTurnStarts, learnTurnStarts } from './turns.js';

export interface InferOptions {
  /** The pack's name (default `inferred`); with several kinds of stream, each pack is `<name>/<route>`. */
  name?: string;
  /** The fewest times a rule must have been put to the test to be proposed (default 3). */
  minSupport?: number;
  /** Only streams whose request path matches one of these regexes, as one pack. */
  routes?: string[];
}

export const DEFAULT_MIN_SUPPORT = 3;

export const minSupportOf = (options: InferOptions) => options.minSupport ?? DEFAULT_MIN_SUPPORT;

/** A learned pack's turn starts as the checker reads them. */
export const asTurnStartsOf = (p: InferredPack) => asTurnStarts(p.turnStarts);

/** What a learned pack file says, as its text and as the packs it was built from. */
export interface LearnedPack {
  packs: InferredPack[];
  text: string;
  streams: number;
  events: number;
}

type Learned = InferredPack & { events: number; streamCount: number };

/** The rules a set of streams keeps, tested often enough, checked on every recording as a pack of them would be. */
function rulesOf(
  streams: LearnedStream[],
  recordings: readonly Recording[],
  minSupport: number,
  check: { starts: TurnStart[]; routes?: RegExp[]; session?: string },
) {
  const label = labeller(streams);
  const keyed = keyedStreams(streams, label);
  const byKey = typesByKey(keyed);
  const withTurns = check.starts.length > 0 && streams.some((s) => s.turns.length > 0);
  const all: Candidate[] = [
    ...orderCandidates(streams, withTurns),
    ...kindCandidates(streams, label),
    ...pairCandidates(keyed, byKey),
    ...assembleCandidates(keyed, byKey),
    ...progressionCandidates(keyed, byKey),
    ...sequenceCandidates(keyed),
    ...jsonRpcCandidates(keyed),
  ].filter((c) => c.support >= minSupport && (c.rule.scope === 'stream' || withTurns));
  const holding = holdingCandidates(all, recordings, withTurns ? check.starts : [], check.routes, check.session);
  return { withTurns, rules: named(withoutTurnEchoes(withoutImplied(holding))) };
}

/** One pack's worth of learning: the streams on its routes, its turn starts, and the rules they all keep. */
function learnOne(recordings: readonly Recording[], name: string, routeList: string[], minSupport: number): Learned {
  const routes = routeList.map((r) => new RegExp(r));
  const learnedStarts = learnTurnStarts(recordings, routes);
  const starts = asTurnStarts(learnedStarts);
  const streams = learnedStreams(recordings, starts, routes);
  const { withTurns, rules } = rulesOf(streams, recordings, minSupport, { starts, routes });
  const events = streams.reduce((n, s) => n + s.events.length, 0);
  return {
    name,
    description: `${streams.length} streams, ${events} events`,
    routes: routeList,
    turnStarts: withTurns ? learnedStarts : [],
    payloads: learnPayloads(streams, minSupport),
    rules,
    events,
    streamCount: streams.length,
  };
}

/** A JSON-RPC session pack: every session's messages, both sides, as one stream (MCP's Streamable HTTP). */
function learnSessions(recordings: readonly Recording[], name: string, header: string, minSupport: number): Learned {
  const streams = sessionStreams(recordings, header);
  const { rules } = rulesOf(streams, recordings, minSupport, { starts: [], session: header });
  const events = streams.reduce((n, s) => n + s.events.length, 0);
  return {
    name,
    description: `${streams.length} sessions (by the ${header} header), ${events} messages`,
    routes: [],
    session: header,
    turnStarts: [],
    payloads: learnPayloads(streams, minSupport),
    rules,
    events,
    streamCount: streams.length,
  };
}

const routeSlug = (template: string) =>
  template
    .toLowerCase()
    .replace(/\{id\}/g, 'id')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

/**
 * Learns a pack file from recordings: one pack per kind of stream (each route a server streams on), each with the
 * rules every recorded stream keeps, tested often enough, and a payload schema per event type.
 */
export function learnPack(recordings: readonly Recording[], options: InferOptions = {}): LearnedPack {
  const minSupport = minSupportOf(options);
  const name = options.name ?? 'inferred';
  const templates = [...new Set(mergeTemplates(learnedStreams(recordings, []).map((s) => s.route)).values())].sort();
  if (templates.length === 0)
    throw new UsageError(
      `no SSE stream or WebSocket session in ${recordings.length} recording(s): a pack describes streams; record one with bench record or bench proxy`,
    );
  // A pack's routes are paths: a GET and a POST on one path (MCP's /mcp) are one kind of stream.
  const paths = [...new Set(templates.map((t) => t.slice(t.indexOf(' ') + 1)))];
  const groups = options.routes
    ? [{ name, routes: options.routes }]
    : paths.map((p) => ({ name: paths.length === 1 ? name : `${name}/${routeSlug(p)}`, routes: [templateRegex(`ANY ${p}`)] }));
  const header = options.routes ? undefined : sessionHeader(recordings);
  const learned = [
    ...groups.map((g) => learnOne(recordings, g.name, g.routes, minSupport)),
    ...(header ? [learnSessions(recordings, `${name}/session`, header, minSupport)] : []),
  ].filter((p) => p.streamCount > 0);
  if (learned.length === 0)
    throw new UsageError(
      `no stream of the recordings is on the given --route (${options.routes?.join(', ')}); the streams are on ${templates.join(', ')}`,
    );
  // A pack must have a rule to check (payloads alone would pass any order): streams too few to test one get none.
  const packs = learned.filter((p) => p.rules.length > 0);
  const left = learned.filter((p) => p.rules.length === 0).map((p) => `${p.routes.join(', ')} (${p.description})`);
  if (packs.length === 0)
    throw new UsageError(
      `no rule was tested ${minSupport} times in these recordings (${left.join('; ')}): give more recordings, or a lower --min-support`,
    );
  const streams = learned.reduce((n, p) => n + p.streamCount, 0);
  const events = learned.reduce((n, p) => n + p.events, 0);
  const summary = `learned by bench infer from ${recordings.length} recording(s): ${streams} streams, ${events} events`;
  return finishPacks(
    packs.map(({ events: _e, streamCount: _s, ...p }) => p),
    recordings,
    { minSupport, left, summary },
    { streams, events },
  );
}

function header(minSupport: number, left: readonly string[]): string[] {
  return [
    `A contract pack learned from recordings by \`bench infer\` (min support ${minSupport}). Review it, then commit it.`,
    'Each rule held in every recorded stream; the comment above it says how often it was tested and where first.',
    'Payload schemas list the fields every event had as required and leave other fields open.',
    ...(left.length > 0
      ? [`No rule was tested often enough on the streams of ${left.join('; ')}: record more of them, or lower --min-support.`]
      : []),
  ];
}

/**
 * Reads the written text back as `bench verify` will and drops whatever the recordings it was learned from
 * break (a schema zod reads differently, say), so the file never fails its own recordings.
 */
export function finishPacks(
  packs: InferredPack[],
  recordings: readonly Recording[],
  about: { minSupport: number; left: string[]; summary: string },
  counts: { streams: number; events: number },
): LearnedPack {
  let current = packs;
  const render = () => renderInferredPacks(current, header(about.minSupport, about.left), about.summary);
  for (let round = 0; round < 3; round++) {
    const text = render();
    const parsed = parsePackTexts(text, 'inferred.yaml');
    const broken = new Set<string>();
    for (const r of recordings)
      for (const result of verifyCassette(r.cassette, r.name, parsed).rules)
        for (const v of result.violations)
          broken.add(
            v.rule === 'payload-schema' || v.rule === 'known-event-types'
              ? `${v.pack} payload ${violatedType(v.message)}`
              : `${v.pack} ${v.rule}`,
          );
    if (broken.size === 0) return { packs: current, text, streams: counts.streams, events: counts.events };
    current = current
      .map((p) => ({
        ...p,
        rules: p.rules.filter((c) => !broken.has(`${p.name} ${c.rule.name}`)),
        payloads: p.payloads.map((x) => (broken.has(`${p.name} payload ${x.type}`) ? { ...x, schema: {} } : x)),
      }))
      .filter((p) => p.rules.length > 0);
  }
  return { packs: current, text: render(), streams: counts.streams, events: counts.events };
}
