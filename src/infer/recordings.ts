import { relative } from 'node:path';
import { type Cassette, loadCassette } from '../cassette/index.js';
import { type CheckedEvent, type Segment, streamsOf, type TurnStart } from '../contracts/index.js';
import { UsageError } from '../errors.js';
import { isCassetteFile, listFiles } from '../fs/list-files.js';
import { routeTemplate } from '../net/route-template.js';

/** One recording a pack is learned from: a cassette and how reports name it. */
export interface Recording {
  name: string;
  cassette: Cassette;
}

/** One recorded stream (or WebSocket session) as inference reads it. */
export interface LearnedStream {
  /** `recording #seq`, as evidence comments name where a rule was first seen. */
  where: string;
  recording: string;
  route: string;
  events: CheckedEvent[];
  /** Its turns, when the pack has turn starts: each a stretch of `events`. */
  turns: Segment[];
  /** The server ended it: its last event is where the server meant it to end. */
  complete: boolean;
}

/** Every cassette under the paths (files or folders), in a fixed order so the same input always learns the same pack. */
export async function loadRecordings(paths: readonly string[]): Promise<Recording[]> {
  // In the order the paths were given, each one's files by name: `--holdout` holds out the last ones.
  const files = (await Promise.all(paths.map(async (p) => (await listFiles(p, isCassetteFile)).sort()))).flat();
  if (files.length === 0)
    throw new UsageError(`no recording (*.yaml) under ${paths.join(', ')}: give folders or cassettes made by bench record or bench proxy`);
  const unique = [...new Set(files)];
  const base = process.cwd();
  return Promise.all(unique.map(async (file) => ({ name: relative(base, file) || file, cassette: await loadCassette(file) })));
}

const pathOf = (path: string) => path.split('?')[0] ?? '';

/** Whether a stream's request path is one the pack describes. */
export const onRoutes = (routes: readonly RegExp[] | undefined, path: string) =>
  routes === undefined || routes.some((r) => r.test(pathOf(path)));

/** The streams of the recordings (on `routes`, when given), with turns cut by `starts`, comment lines left out. */
export function learnedStreams(
  recordings: readonly Recording[],
  starts: readonly TurnStart[],
  routes?: readonly RegExp[],
): LearnedStream[] {
  const out: LearnedStream[] = [];
  for (const { name, cassette } of recordings)
    for (const s of streamsOf(cassette, starts)) {
      const { method, path } = s.interaction.request;
      if (!onRoutes(routes, path)) continue;
      out.push({
        where: `${name} #${s.interaction.seq}`,
        recording: name,
        route: routeTemplate(method, path),
        events: s.events,
        turns: s.turns,
        complete: s.interaction.response?.stream?.end === 'server-closed',
      });
    }
  return out;
}

/** A route template as the regex a pack's `routes` and `turnStarts` hold: ids in the path match any segment. */
export function templateRegex(template: string): string {
  const path = template.slice(template.indexOf(' ') + 1);
  const escaped = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{id\}/g, '[^/]+');
  return `^${escaped}$`;
}

/**
 * Route templates with the ids `routeTemplate` cannot tell from words merged, each template to the route it is
 * part of: two routes of one method that differ only where both segments hold a digit (`/v1/sessions/s1/events`,
 * `/v1/sessions/s2/events`) are one route, `/v1/sessions/{id}/events`.
 */
export function mergeTemplates(templates: readonly string[]): Map<string, string> {
  const routes: string[][] = [];
  const of = new Map<string, string[]>();
  for (const t of [...new Set(templates)].sort()) {
    const parts = [t.slice(0, t.indexOf(' ')), ...t.slice(t.indexOf(' ') + 1).split('/')];
    const idLike = (seg: string) => seg === '{id}' || /\d/.test(seg);
    const same = routes.find(
      (r) => r.length === parts.length && r.every((seg, i) => seg === parts[i] || (i > 0 && idLike(seg) && idLike(parts[i] as string))),
    );
    if (!same) routes.push(parts);
    else for (const [i, seg] of parts.entries()) if (same[i] !== seg) same[i] = '{id}';
    of.set(t, same ?? parts);
  }
  return new Map([...of].map(([t, parts]) => [t, `${parts[0]} ${parts.slice(1).join('/')}`]));
}
