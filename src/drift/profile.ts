import { join, relative } from 'node:path';
import { type Cassette, decodeBody, loadCassette, readJson } from '../cassette/index.js';
import { choosePacks, registeredPacks, streamsOf, type TurnStart, verifyCassette } from '../contracts/index.js';
import { isCassetteFile, listFiles } from '../fs/list-files.js';
import { loadManifest, type Manifest } from '../manifest/manifest.js';
import { routeTemplate } from '../net/route-template.js';
import type { DriftConfig } from './config.js';
import { type DriftStream, sessionDriftStreams, sessionHeaderOf } from './session-streams.js';
import { addToShape, type Occurrences, recordOccurrence, recordValues, type Shape, type Values } from './shape.js';

/** How the responses of one route came: statuses, content types, bodies, and how its streams ended. */
export interface RouteProfile {
  statuses: Set<number>;
  contentTypes: Set<string>;
  /** Responses with a body (JSON or not), and without one. */
  bodies: { some: number; empty: number };
  /** How its SSE streams and WebSocket sessions ended (`server-closed`, `client-closed`, `broken`, ...). */
  ends: Set<string>;
  /** Streams whose last data was the `[DONE]` sentinel, and those without it. */
  sentinel: { with: number; without: number };
}

/** One probe's recorded turn: its event types in order (noise left out); the last of a stream its client closed is marked. */
export type Turn = string[] & { clientClosed?: true };

/** What drift compares for one harness folder (or one loose folder of cassettes). */
export interface Profile {
  /** Route (method + path template) -> how its responses came. */
  routes: Map<string, RouteProfile>;
  /** Event type -> merged payload shape. */
  eventShapes: Map<string, Shape>;
  /** Route -> merged JSON response body shape. */
  routeShapes: Map<string, Shape>;
  /** Event type / route -> in how many occurrences each field was present. */
  eventPresence: Map<string, Occurrences>;
  routePresence: Map<string, Occurrences>;
  /** Event type / route -> the string values each field took, with counts. */
  eventValues: Map<string, Values>;
  routeValues: Map<string, Values>;
  /** Per probe (cassette name): the event-type sequence of each turn. */
  turns: Map<string, Turn[]>;
  /** Per probe: `pack rule` keys with at least one violation, and the event types they were on. */
  violations: Map<string, Map<string, Set<string>>>;
  /** Every cassette profiled, by name: the probes a report lists. */
  probes: string[];
  /** The longest recording (first request to last event), in ms: how long a probe takes on this server. */
  longestMs: number;
  manifest?: Manifest;
}

function entry<T>(map: Map<string, T>, key: string, make: () => T): T {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}
const newOccurrences = (): Occurrences => ({ count: 0, paths: new Map() });

/** A built-in pack by name; an unknown name is verify's to report, not drift's. */
const knownPack = (name: string) => registeredPacks().find((p) => p.name === name);

/** The packs a cassette names, else (a `bench proxy` recording) the ones its traffic fits, as `bench verify` chooses them. */
const packsOf = (cassette: Cassette): string[] => cassette.meta.packs ?? choosePacks(cassette).chosen.map((c) => c.pack);

function jsonBody(body: NonNullable<Cassette['interactions'][number]['response']>['body']): { json: unknown } | undefined {
  if (!body) return undefined;
  if ('json' in body) return { json: body.json };
  if ('text' in body) {
    return readJson(decodeBody(body).toString('utf8'));
  }
  return undefined;
}

/** Where turns start in a cassette that no family speaks for (a loose folder): where the packs it names say they do. */
function turnStartsOfPacks(cassette: Cassette): TurnStart[] {
  // Not where the packs its traffic fits say: a turn is cut by which request an event followed, and a re-run's
  // requests go out at their own pace.
  return [...new Set((cassette.meta.packs ?? []).flatMap((p) => knownPack(p)?.turnStarts ?? []))];
}

/** How each route of a cassette answered: status, content type, body or stream, its shape and values. */
function addRoutes(profile: Profile, cassette: Cassette, ignore: (path: string) => boolean): void {
  for (const i of cassette.interactions) {
    // Routes are compared by template: ids in paths are noise.
    const route = routeTemplate(i.request.method, i.request.path);
    const r = entry(profile.routes, route, () => ({
      statuses: new Set<number>(),
      contentTypes: new Set<string>(),
      bodies: { some: 0, empty: 0 },
      ends: new Set<string>(),
      sentinel: { with: 0, without: 0 },
    }));
    if (!i.response) {
      if (i.failure) r.statuses.add(502);
      continue;
    }
    r.statuses.add(i.response.status);
    const ct = i.response.headers['content-type'];
    const contentType = (Array.isArray(ct) ? ct[0] : ct)?.split(';')[0]?.trim();
    if (contentType) r.contentTypes.add(contentType);
    const { body, stream, websocket } = i.response;
    if (stream || websocket) {
      r.ends.add((stream ?? websocket)?.end as string);
      if (stream) {
        const last = [...stream.events].reverse().find((e) => e.data !== undefined);
        if (last?.data?.trim() === '[DONE]') r.sentinel.with++;
        else r.sentinel.without++;
      }
    } else if (i.response.status !== 204 && i.response.status !== 304) {
      const empty = !body || ('text' in body && body.text === '') || ('base64' in body && body.base64 === '');
      if (empty) r.bodies.empty++;
      else r.bodies.some++;
    }
    const parsed = jsonBody(body);
    if (parsed) {
      addToShape(
        entry(profile.routeShapes, route, () => new Map()),
        parsed.json,
        '',
        ignore,
      );
      recordOccurrence(entry(profile.routePresence, route, newOccurrences), parsed.json, ignore);
      recordValues(
        entry(profile.routeValues, route, () => new Map()),
        parsed.json,
        ignore,
      );
    }
  }
}

function addCassette(profile: Profile, name: string, cassette: Cassette, config: DriftConfig, turnStarts?: readonly TurnStart[]): void {
  const ignore = (path: string) =>
    config.ignoreFields.some(
      (f) => f === path || path.endsWith(`.${f}`) || path.startsWith(`${f}.`) || path.startsWith(`${f}[]`) || path.startsWith(`${f}{}`),
    );
  profile.probes.push(name);
  for (const i of cassette.interactions) {
    const last = Math.max(i.timing.end ?? i.timing.start, ...(i.response?.stream?.events ?? []).map((e) => e.at));
    profile.longestMs = Math.max(profile.longestMs, last);
  }
  addRoutes(profile, cassette, ignore);
  // Types the config ignores, and those the cassette's packs call noise (housekeeping whose timing is the server's).
  const packs = packsOf(cassette);
  const skipped = new Set([...config.ignoreEventTypes, ...packs.flatMap((p) => knownPack(p)?.noise ?? [])]);
  const turns: Turn[] = [];
  const streams = streamsOf(cassette, turnStarts ?? turnStartsOfPacks(cassette));
  const header = sessionHeaderOf(cassette);
  const driftStreams: DriftStream[] = header
    ? sessionDriftStreams(cassette, header)
    : streams.map((s) => ({ ...s, clientClosed: s.interaction.response?.stream?.end === 'client-closed' }));
  for (const stream of driftStreams) {
    for (const e of stream.events) {
      if (skipped.has(e.type)) continue;
      addToShape(
        entry(profile.eventShapes, e.type, () => new Map()),
        e.data,
        '',
        ignore,
      );
      recordOccurrence(entry(profile.eventPresence, e.type, newOccurrences), e.data, ignore);
      recordValues(
        entry(profile.eventValues, e.type, () => new Map()),
        e.data,
        ignore,
      );
    }
    for (const [k, t] of stream.turns.entries()) {
      const turn: Turn = stream.events
        .slice(t.start, t.end)
        .map((e) => e.type)
        .filter((type) => !skipped.has(type));
      if (stream.clientClosed && k === stream.turns.length - 1) turn.clientClosed = true;
      turns.push(turn);
    }
  }
  profile.turns.set(name, turns);
  const checked = verifyCassette(cassette, name);
  const broken = new Map<string, Set<string>>();
  for (const r of checked.rules) {
    if (r.violations.length === 0) continue;
    const types = new Set<string>();
    for (const v of r.violations) {
      const type = streams.find((s) => s.interaction.seq === v.interaction)?.events[v.eventIndex]?.type;
      if (type) types.add(type);
    }
    broken.set(`${r.pack} ${r.rule}`, types);
  }
  profile.violations.set(name, broken);
}

/** An empty profile, to fill with `addToProfile`. */
export function emptyProfile(): Profile {
  return {
    routes: new Map(),
    eventShapes: new Map(),
    routeShapes: new Map(),
    eventPresence: new Map(),
    routePresence: new Map(),
    eventValues: new Map(),
    routeValues: new Map(),
    turns: new Map(),
    violations: new Map(),
    probes: [],
    longestMs: 0,
  };
}

/** Adds one cassette, under its name, to a profile; turns start where `turnStarts` say (default: where its packs say). */
export function addToProfile(
  profile: Profile,
  name: string,
  cassette: Cassette,
  config: DriftConfig,
  turnStarts?: readonly TurnStart[],
): Profile {
  addCassette(profile, name, cassette, config, turnStarts);
  return profile;
}

/**
 * Profiles every cassette under a folder (a harness folder's manifest included), or only those `only` names;
 * turns start where `turnStarts` say (the recording family's rule), else where each cassette's packs say.
 */
export async function profileFolder(
  dir: string,
  config: DriftConfig,
  only?: readonly string[],
  turnStarts?: readonly TurnStart[],
): Promise<Profile> {
  const profile = emptyProfile();
  for (const file of await listFiles(dir, isCassetteFile)) {
    const name = relative(dir, file);
    if (!only || only.includes(name)) addCassette(profile, name, await loadCassette(file), config, turnStarts);
  }
  const manifest = await loadManifest(join(dir, 'manifest.yaml')).catch(() => undefined);
  if (manifest) profile.manifest = manifest;
  return profile;
}
