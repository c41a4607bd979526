import fc from 'fast-check';
import { type Cassette, writeCassetteAtomic } from '../cassette/index.js';
import type { Pack } from '../contracts/index.js';
import type { FetchLike } from '../families/kit/index.js';
import { cassetteFetch } from '../probing/index.js';
import type { NamedCassette, ReplayOptions } from '../replayer/index.js';
import { variationArbitrary } from './arbitraries.js';
import { describeMiss, echoesVariation } from './client-misses.js';
import { FuzzError } from './errors.js';
import { eventLabels } from './labels.js';
import { transportReframing } from './transport.js';
import { applyVariation, type Transport, transportSchema, type Variation, type VariationSpace, variationSpace } from './variation.js';

export interface FuzzOptions {
  /** How reports and saved counterexamples name the cassette. */
  name?: string;
  /** Packs that define what is legal (default: the cassette's meta.packs). */
  packs?: readonly (string | Pack)[];
  /** Event types the property observes: the fuzzer never inserts or deletes them. */
  keep?: readonly string[];
  /** Variations to try (default 100). */
  runs?: number;
  /** fast-check seed; printed on failure, and with `path` it replays the exact counterexample. */
  seed?: number;
  path?: string;
  /** Replay options for every variation (matching, folders, redaction); timing stays as given (default instant). */
  replay?: ReplayOptions;
  /** Writes the shrunk counterexample here as a cassette, to keep as a regression test. */
  saveCounterexample?: string;
  maxEdits?: number;
  maxCuts?: number;
  /**
   * The line endings to try (default the three SSE allows: LF, CRLF and a bare CR). Narrow it for a client known to
   * lack one, and test that one apart: the MCP TypeScript SDK 1.32.2 drops a stream's last event after a bare CR.
   */
  lineEnds?: readonly Transport['eol'][];
  /** False: no payload edits (a field dropped, nulled or added), for a property that compares the data the client got. */
  payloads?: boolean;
}

/** One variation, ready to be replayed to the code under test. */
export interface FuzzCase {
  /** The varied cassette (edits applied; the transport applies at replay). */
  cassette: Cassette;
  variation: Variation;
  /** The edits that applied, in words. */
  applied: string[];
  /** Options that replay this variation byte for byte through any door. */
  replay: ReplayOptions;
  /** Cassettes for a door: this variation alone. */
  cassettes: NamedCassette[];
  /** A fetch that answers from this variation through the undici door. */
  fetch: FetchLike;
}

export interface FuzzCounterexample {
  seed: number;
  path: string;
  /** Variations tried up to the first failure, and shrink steps after it. */
  runs: number;
  shrinks: number;
  variation: Variation;
  applied: string[];
  /** Chunk cuts made when the counterexample was replayed once more. */
  cuts: string[];
  eol: Transport['eol'];
  /** The event sequence of each stream the edits changed or the transport cut. */
  streams: { seq: number; events: string[] }[];
  error: string;
  /** Whether replaying the shrunk variation once more failed again. */
  reproduced: boolean;
  saved?: string;
}

export interface FuzzReport {
  name: string;
  seed: number;
  runs: number;
  /** Variations the recording could not answer because the client rightly sent back the varied text; not counted in `runs`. */
  unreplayable: number;
  failure?: FuzzCounterexample;
}

/** The property under test: it fails by throwing (or rejecting) or by returning false. */
export type FuzzProperty = (c: FuzzCase) => unknown;

const LABEL_TRANSPORT = 'fuzz-transport';

function makeCase(space: VariationSpace, variation: Variation, replay: ReplayOptions | undefined) {
  const varied = applyVariation(space, variation);
  const { reframe, log, cut } = transportReframing(varied.cassette, space.sse, variation.transport);
  const options: ReplayOptions = { ...replay, reframe };
  const cassettes = [{ name: space.name, cassette: varied.cassette }];
  const fetch = cassetteFetch(cassettes, options);
  const c: FuzzCase = {
    cassette: varied.cassette,
    variation,
    applied: varied.applied,
    replay: options,
    cassettes,
    fetch,
  };
  return { c, engine: fetch.engine, log, touched: () => [...new Set([...varied.changed, ...cut])].sort((a, b) => a - b) };
}

/** A fresh 32-bit seed, for runs that were not given one (it is printed, so any run can be repeated). */
export const newSeed = (): number => (Date.now() ^ (Math.random() * 0x100000000)) >>> 0;

type MadeCase = ReturnType<typeof makeCase>;

/**
 * Runs the property on one case. When it fails and the client had sent a request the variation lacks, the
 * failure is that request, named with the nearest recorded one; a miss that only echoes the varied text back
 * is a variation the recording cannot replay, skipped (`fc.pre`), not a broken client.
 */
async function holds(property: FuzzProperty, made: MadeCase): Promise<void> {
  let failure: unknown;
  try {
    if ((await property(made.c)) === false) failure = new Error('the property returned false');
  } catch (err) {
    failure = err;
  }
  if (failure === undefined) return;
  const miss = made.engine.misses[0];
  if (!miss) throw failure;
  fc.pre(!echoesVariation(miss, made.c.applied));
  throw new Error(describeMiss(miss));
}

/**
 * Replays legal variations of `cassette` to `property` and reports the first
 * one that breaks it, shrunk to a minimal variation; never throws for a failure.
 */
export async function exploreCassette(cassette: Cassette, options: FuzzOptions, property: FuzzProperty): Promise<FuzzReport> {
  const name = options.name ?? cassette.meta.labels?.probe ?? 'cassette';
  const space = variationSpace(cassette, name, options);
  const seed = options.seed ?? newSeed();
  const arbitrary = variationArbitrary(space, options);
  const details = await fc.check(
    fc.asyncProperty(arbitrary, (v) => holds(property, makeCase(space, v, options.replay))),
    { numRuns: options.runs ?? 100, seed, ...(options.path ? { path: options.path } : {}) },
  );
  const unreplayable = details.numSkips;
  if (!details.failed || !details.counterexample) return { name, seed, runs: details.numRuns, unreplayable };
  const [variation] = details.counterexample;
  const again = makeCase(space, variation, options.replay);
  let error = String((details.errorInstance as Error | undefined)?.message ?? details.errorInstance);
  let reproduced = true;
  try {
    await holds(property, again);
    reproduced = false;
  } catch (err) {
    error = (err as Error).message;
  }
  const failure: FuzzCounterexample = {
    seed,
    path: details.counterexamplePath ?? '',
    runs: details.numRuns,
    shrinks: details.numShrinks,
    variation,
    applied: again.c.applied,
    cuts: again.log,
    eol: variation.transport.eol,
    streams: again.touched().map((seq) => ({
      seq,
      events: eventLabels(again.c.cassette.interactions.find((i) => i.seq === seq)),
    })),
    error,
    reproduced,
  };
  if (options.saveCounterexample) {
    const labels = {
      ...again.c.cassette.meta.labels,
      'fuzz-of': name,
      'fuzz-seed': String(seed),
      'fuzz-path': failure.path,
      [LABEL_TRANSPORT]: JSON.stringify(variation.transport),
    };
    await writeCassetteAtomic(options.saveCounterexample, { ...again.c.cassette, meta: { ...again.c.cassette.meta, labels } });
    failure.saved = options.saveCounterexample;
  }
  return { name, seed, runs: details.numRuns, unreplayable, failure };
}

/** The counterexample as a report: how to reproduce it, what changed, and the event sequence that broke the property. */
export function formatCounterexample(report: FuzzReport): string {
  const f = report.failure;
  const skipped =
    report.unreplayable > 0 ? ` (${report.unreplayable} more the recording cannot replay: the client sent back varied text)` : '';
  if (!f) return `${report.name}: ${report.runs} legal variations, the property held${skipped}`;
  const lines = [
    `${report.name}: a legal variation broke the property after ${f.runs} variation(s), shrunk in ${f.shrinks} step(s)`,
    `  reproduce: seed ${f.seed}, path ${JSON.stringify(f.path)}${f.reproduced ? '' : ' (it passed when replayed once more: timing-dependent)'}`,
    `  error: ${f.error}`,
    '  variation:',
    ...(f.applied.length === 0 ? ['    - no edit to the events'] : f.applied.map((a) => `    - ${a}`)),
    `    - line endings ${f.eol.toUpperCase()}${f.cuts.length === 0 ? ', no extra chunk cut' : ''}`,
    ...f.cuts.map((c) => `    - ${c}`),
    ...f.streams.map((s) => `  events of the stream of seq ${s.seq}, as replayed: ${s.events.join(', ')}`),
  ];
  if (f.saved) lines.push(`  saved as ${f.saved}`);
  return lines.join('\n');
}

/** As `exploreCassette`, but throws a `FuzzError` carrying the printed counterexample: the form for a vitest test. */
export async function fuzzCassette(cassette: Cassette, options: FuzzOptions, property: FuzzProperty): Promise<FuzzReport> {
  const report = await exploreCassette(cassette, options, property);
  if (report.failure) throw new FuzzError('property_failed', formatCounterexample(report));
  return report;
}

/**
 * Replay options that reproduce a saved counterexample byte for byte: its line
 * endings and chunk cuts are kept in `meta.labels`. Empty for other cassettes.
 */
export function counterexampleReplayOptions(cassette: Cassette): ReplayOptions {
  const label = cassette.meta.labels?.[LABEL_TRANSPORT];
  if (label === undefined) return {};
  const transport = transportSchema.parse(JSON.parse(label));
  const streams = cassette.interactions.flatMap((i, n) => (i.response?.stream ? [n] : []));
  return { reframe: transportReframing(cassette, streams, transport).reframe };
}
