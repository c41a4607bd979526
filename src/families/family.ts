import type { Pack, TurnStart } from '../contracts/index.js';
import { TapedeckError } from '../errors.js';
import type { Verdict } from '../manifest/index.js';
import type { MockRule } from '../mock-model/index.js';
import type { ReplayDoor } from './kit/replay-door.js';

/**
 * How long probes wait, which each family turns into its own ceilings: the
 * embedded simulator, a live server (long), a replay (events come at once) or
 * a fuzz run (a stuck variation should fail fast: shrinking replays it often).
 */
export type Pace = 'simulated' | 'live' | 'replay' | 'fuzz';

/** The ceiling of one turn at each pace, for families that need no finer timings. */
export const TURN_MS: Record<Pace, number> = { simulated: 10_000, live: 120_000, replay: 10_000, fuzz: 2000 };

/** The turn ceiling a plan uses: the context's own when it has one, never above the pace's. */
export function turnCeiling(context: { pace: Pace; turnMs?: number | undefined }, paceMs = TURN_MS[context.pace]): number {
  return context.turnMs !== undefined ? Math.min(context.turnMs, paceMs) : paceMs;
}

/** One probe of a family: what the manifest names it and how much it matters. */
export interface FamilyProbe {
  name: string;
  priority: 'P0' | 'P1';
}

/** What a probe is expected to show, or why it cannot run at all (SKIPPED before any traffic). */
export interface Declaration {
  declared: Verdict | undefined;
  skip?: string | undefined;
  /** Why the server has nothing for this probe to try (it says so itself): NOT_APPLICABLE, no traffic. */
  notApplicable?: string | undefined;
}

/** A simulator (or real server) a family records: where it listens, and the key its clients need, if any. */
export interface RunningServer {
  url: string;
  apiKey?: string | undefined;
  close(): Promise<void>;
}

/** How a simulator is started: `bench sim` and `bench record` give the same options to every family. */
export interface SimulatorOptions {
  port?: number | undefined;
  host?: string | undefined;
  seed?: number | undefined;
  latencyMs?: number | undefined;
  apiKey?: string | undefined;
  /** Server changes to emulate (the families that support `--mutate`). */
  mutate?: readonly string[] | undefined;
  /** Family-specific behaviour overrides (tests, fuzzing). */
  extra?: Record<string, unknown> | undefined;
}

/** What a family's plan for one recording is given. */
export interface PlanContext {
  /** The server URL as the family's clients dial it (`ws://` for WebSocket families). */
  server: string;
  /** How long the probes may wait. */
  pace: Pace;
  /** A ceiling for one turn below the pace's own (drift derives it from the baseline), so a server that stalls is told in minutes. */
  turnMs?: number | undefined;
  apiKey?: string | undefined;
  /** The family's variant (a harness id); absent for families without one. */
  variant?: string | undefined;
  /** What `--input` gave the probes (a parsed YAML or JSON document), for families whose probes take inputs; each checks its own. */
  inputs?: unknown;
}

/** One recording's probes and how each runs against the recording proxy. */
export interface FamilyPlan<P extends FamilyProbe = FamilyProbe> {
  /** The folder under `--out` and the manifest's harness name. */
  folder: string;
  probes: readonly P[];
  declare(probe: P): Declaration;
  /** Asks the server what it has before the first `declare` (unrecorded), when the declarations depend on it. */
  ready?(): Promise<void>;
  /** Runs one probe against the recording proxy's `http://` URL. */
  observe(probe: P, proxyUrl: string): Promise<{ observed: Verdict; reason: string }>;
  /** The packs this recording's cassettes name, when not the family's (a variant that speaks another dialect). */
  packs?: readonly Pack[] | undefined;
  /** A probe whose failure makes every later probe SKIPPED (the bench's basic turn). */
  gate?: string | undefined;
}

/** A real vendor server a family can run itself (decision 0005). */
export interface PeerSpec {
  /** Where its recordings go by default: beside the simulator's, never over them. */
  folder: string;
  /** The server's name in meta and the manifest (`opencode serve`). */
  title: string;
  /** The throwaway root's name prefix under the temp folder (default `tapedeck-peer-<target>-`); short when the server binds unix sockets under it. */
  rootPrefix?: string | undefined;
  /** Writes its isolated config under `root`; returns its command line, environment, listening line and what else it needs. */
  prepare(root: string, options: { modelBaseUrl: string; baseEnv: Record<string, string>; binary: string }): Promise<PeerLaunch>;
}

/** How a peer is run: the server, what starts beside it once it listens, and when it is ready for probes. */
export interface PeerLaunch {
  args: string[];
  env: Record<string, string>;
  /** Its listening line on stdout or stderr; the first group is its URL, or what `urlOf` makes one of. */
  listening?: RegExp | undefined;
  /** Its URL, for a server that prints no listening line (it is then known ready by `isReady`). */
  url?: string | undefined;
  /** The key its clients must send, when the peer chose one. */
  apiKey?: string | undefined;
  urlOf?: ((listened: string) => string) | undefined;
  /** Processes started once the server listens (a runner), each in a process group of its own, stopped with it. */
  companions?: ((url: string) => { command: string; args: string[]; env: Record<string, string> }[]) | undefined;
  /** Whether probes can run yet (a runner online); asked every 200 ms until it says so, the server exits, or the start times out. */
  isReady?: ((url: string) => Promise<boolean>) | undefined;
  /** Removes what the vendor writes outside the root whatever its settings say; run once every process of the peer has stopped. */
  afterStop?: (() => Promise<void>) | undefined;
}

/** What `bench record --help` and the guides say of a family, beside its summary. */
export interface FamilyHelp {
  /** A paragraph on what its probes do and where its cassettes go. */
  details?: string | undefined;
  /** What `--input` gives its probes, in a few words, when they take inputs. */
  inputs?: string | undefined;
  /** Whole command lines (`bench record --target my-server`), shown under Examples. */
  examples?: readonly string[] | undefined;
}

/** What drift needs to know of a family: where a turn starts, and what its real server leaves to chance. */
export interface FamilyDrift {
  /** Requests that start a turn; drift compares the event order of each turn (none: a stream is not cut into turns). */
  turnStarts?: readonly TurnStart[] | undefined;
  /** What drift must not count as a change for a variant's recordings: the real server's known races, each with its reason. */
  noise?: ((variant: string, recorded: { fromSimulator: boolean }) => DriftNoise | undefined) | undefined;
}

/**
 * A server family: the only thing orchestration (record, replay-check, drift,
 * fuzz, sim, the CLI's help) knows of a server. The registry lists the
 * built-in ones; a user's own come from `tapedeck.config.*` (`families: [...]`).
 */
export interface Family<P extends FamilyProbe = FamilyProbe> {
  /** The `--target` name (lower case, digits and dashes). */
  id: string;
  /** The manifest's `suite`: which probe suite recorded a folder. */
  suite: string;
  /** What `--help` says the family records, in one line. */
  summary: string;
  help?: FamilyHelp | undefined;
  /** The folder under `--out` when the family has no variants. */
  folder: string;
  /** The contract packs its recordings name in `meta.packs`; registered with the family. */
  packs: readonly Pack[];
  probes: readonly P[];
  /** Variants the family records one at a time; `--harness` picks one. */
  variants?: { flag: 'harness'; ids: readonly string[]; check(id: string): void } | undefined;
  /** The environment variable holding the live server's key (`--api-key` overrides it). */
  apiKeyEnv?: string | undefined;
  /** Checks a `--server` URL before anything starts; throws a UsageError naming the fix. */
  checkServer?(url: string): Promise<void> | void;
  /** The URL the recording proxy forwards to, for a server URL (a WebSocket family's ws:// becomes http://). */
  proxyTarget?(server: string): string;
  simulator?:
    | {
        /** How meta and the manifest describe it. */
        describe(seed: number): string;
        start(options: SimulatorOptions): Promise<RunningServer>;
        /** What `bench sim --mutate` may emulate, for `--help`; absent when the simulator takes no mutations. */
        mutations?: string | undefined;
      }
    | undefined;
  plan(context: PlanContext, selected: readonly P[]): FamilyPlan<P>;
  /** Runs a recorded probe's own client against a replay and reconciles its verdict with the declared one. */
  replay(
    recorded: { harness: string; probe: string; file: string },
    door: ReplayDoor,
    pace?: 'replay' | 'fuzz',
  ): Promise<{ replayed: Verdict; reason: string }>;
  /** The real server `--peer` starts for it (decision 0005). */
  peer?: PeerSpec | undefined;
  /** A variant that needs a real server set up otherwise: its own peer. */
  peerOf?: ((variant: string) => PeerSpec | undefined) | undefined;
  drift?: FamilyDrift | undefined;
  /** How the mock model answers this family's probe prompts, when a peer runs against it. */
  mockModel?: readonly MockRule[] | undefined;
}

const FAMILY_ID = /^[a-z][a-z0-9-]*$/;

/**
 * Declares a family: checks what a type cannot (ids, names) once, at load, and
 * gives it back typed for the registry or a `tapedeck.config.*`.
 */
export function defineFamily<P extends FamilyProbe>(family: Family<P>): Family {
  if (!FAMILY_ID.test(family.id))
    throw new FamilyDefinitionError(`family id ${JSON.stringify(family.id)}: use lower-case letters, digits and dashes`);
  if (!FAMILY_ID.test(family.suite))
    throw new FamilyDefinitionError(
      `family ${family.id}: suite ${JSON.stringify(family.suite)}: use lower-case letters, digits and dashes`,
    );
  const names = family.probes.map((p) => p.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new FamilyDefinitionError(`family ${family.id}: probe ${JSON.stringify(twice)} is listed twice`);
  if (family.probes.length === 0) throw new FamilyDefinitionError(`family ${family.id}: give at least one probe`);
  return family as unknown as Family;
}

const FUNCTIONS = ['plan', 'replay'] as const;
const STRINGS = ['id', 'suite', 'summary', 'folder'] as const;

/**
 * A value that claims to be a family (a config's `families` entry), checked
 * for what the registry relies on; `where` names the file in the message.
 */
export function checkFamily(value: unknown, where: string): Family {
  const family = value as Record<string, unknown> | null;
  const name = typeof family?.id === 'string' ? `family ${family.id}` : 'a family';
  if (typeof family !== 'object' || family === null)
    throw new FamilyDefinitionError(`${where}: families[] holds ${String(value)}; give defineFamily({...}) objects`);
  for (const key of STRINGS)
    if (typeof family[key] !== 'string') throw new FamilyDefinitionError(`${where}: ${name} has no ${key} (a string); see defineFamily`);
  for (const key of FUNCTIONS)
    if (typeof family[key] !== 'function') throw new FamilyDefinitionError(`${where}: ${name} has no ${key}() function; see defineFamily`);
  if (!Array.isArray(family.packs) || !Array.isArray(family.probes))
    throw new FamilyDefinitionError(`${where}: ${name} needs packs and probes lists; see defineFamily`);
  return defineFamily(family as unknown as Family);
}

/** A family that cannot be used as written: the message names the field and the fix. */
export class FamilyDefinitionError extends TapedeckError {
  constructor(message: string) {
    super('family_invalid', message);
  }
}

/** What a real server leaves to chance, which drift must not call a change. */
export interface DriftNoise {
  /** Event types whose relative order the server does not fix, in either order. */
  unordered: readonly (readonly [string, string])[];
  /** Event types the server sends in some runs and not in others. */
  sometimes: readonly string[];
  /** Event types besides deltas whose repeats in a row are free (streamed chunks, an approval echoed again). */
  runs?: readonly string[] | undefined;
  /**
   * Per probe (`*`: any probe, a recording of any client), event types whose count and place in its turns are the
   * server's race (drift's sequence check leaves them out there).
   */
  unplaced?: Readonly<Record<string, readonly string[]>> | undefined;
  /** Per event type, fields whose value or presence is the server's race: nothing at or under them is compared. */
  racedFields?: Readonly<Record<string, readonly string[]>> | undefined;
}

/** The options every simulator takes (port, host, seed, latency), without the ones left unset. */
export function simulatorBasics(o: SimulatorOptions): { port?: number; host?: string; seed?: number; latencyMs?: number } {
  return Object.fromEntries(
    Object.entries({ port: o.port, host: o.host, seed: o.seed, latencyMs: o.latencyMs }).filter(([, v]) => v !== undefined),
  );
}
