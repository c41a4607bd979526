import { join, relative } from 'node:path';
import { type Cassette, decodeBody, loadCassette } from '../cassette/index.js';
import { streamsOf, verifyCassette } from '../contracts/index.js';
import { BUILT_IN_PACKS } from '../contracts/packs/index.js';
import { omnigentNativeTui } from '../contracts/packs/omnigent.js';
import { isCassetteFile, listFiles } from '../fs/list-files.js';
import { loadManifest, type Manifest } from '../manifest/manifest.js';
import { routeTemplate } from '../net/route-template.js';
import type { DriftConfig } from './config.js';
import { addToShape, type Shape } from './shape.js';

/** What drift compares for one harness folder (or one loose folder of cassettes). */
export interface Profile {
  /** Route (method + path template) -> status codes and content types seen. */
  routes: Map<string, { statuses: Set<number>; contentTypes: Set<string> }>;
  /** Event type -> merged payload shape. */
  eventShapes: Map<string, Shape>;
  /** Route -> merged JSON response body shape. */
  routeShapes: Map<string, Shape>;
  /** Per probe (cassette name): the event-type sequence of each turn. */
  turns: Map<string, string[][]>;
  /** `pack rule` keys with at least one violation, per cassette name. */
  violations: Map<string, Set<string>>;
  manifest?: Manifest;
}

function shapeFor(map: Map<string, Shape>, key: string): Shape {
  let shape = map.get(key);
  if (!shape) map.set(key, (shape = new Map()));
  return shape;
}

/** A built-in pack by name; an unknown name is verify's to report, not drift's. */
const knownPack = (name: string) => BUILT_IN_PACKS.find((p) => p.name === name);

function addCassette(profile: Profile, name: string, cassette: Cassette, config: DriftConfig): void {
  const ignore = (path: string) =>
    config.ignoreFields.some((f) => f === path || path.endsWith(`.${f}`) || path.startsWith(`${f}.`) || path.startsWith(`${f}[]`));
  for (const i of cassette.interactions) {
    // Routes are compared by template: ids in paths are noise.
    const route = routeTemplate(i.request.method, i.request.path);
    let r = profile.routes.get(route);
    if (!r) profile.routes.set(route, (r = { statuses: new Set(), contentTypes: new Set() }));
    if (i.response) {
      r.statuses.add(i.response.status);
      const ct = i.response.headers['content-type'];
      const contentType = (Array.isArray(ct) ? ct[0] : ct)?.split(';')[0]?.trim();
      if (contentType) r.contentTypes.add(contentType);
      const body = i.response.body;
      if (body && 'json' in body) addToShape(shapeFor(profile.routeShapes, route), body.json, '', ignore);
      else if (body && 'text' in body) {
        try {
          addToShape(shapeFor(profile.routeShapes, route), JSON.parse(decodeBody(body).toString('utf8')), '', ignore);
        } catch {
          // Not JSON: no shape to compare.
        }
      }
    } else if (i.failure) {
      r.statuses.add(502);
    }
  }
  // Types the config ignores, and those the cassette's packs call noise (housekeeping whose timing is the server's).
  const skipped = new Set([...config.ignoreEventTypes, ...(cassette.meta.packs ?? []).flatMap((p) => knownPack(p)?.noise ?? [])]);
  const turns: string[][] = [];
  for (const stream of streamsOf(cassette, omnigentNativeTui.turnStarts)) {
    for (const e of stream.events) {
      if (skipped.has(e.type)) continue;
      addToShape(shapeFor(profile.eventShapes, e.type), e.data, '', ignore);
    }
    for (const t of stream.turns)
      turns.push(
        stream.events
          .slice(t.start, t.end)
          .map((e) => e.type)
          .filter((type) => !skipped.has(type)),
      );
  }
  profile.turns.set(name, turns);
  const checked = verifyCassette(cassette, name);
  profile.violations.set(name, new Set(checked.rules.filter((r) => r.violations.length > 0).map((r) => `${r.pack} ${r.rule}`)));
}

/** Profiles every cassette under a folder (a harness folder's manifest included). */
export async function profileFolder(dir: string, config: DriftConfig): Promise<Profile> {
  const profile: Profile = { routes: new Map(), eventShapes: new Map(), routeShapes: new Map(), turns: new Map(), violations: new Map() };
  for (const file of await listFiles(dir, isCassetteFile)) addCassette(profile, relative(dir, file), await loadCassette(file), config);
  const manifest = await loadManifest(join(dir, 'manifest.yaml')).catch(() => undefined);
  if (manifest) profile.manifest = manifest;
  return profile;
}
