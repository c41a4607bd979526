import type { Body } from '../cassette/index.js';
import type { Entry, NamedCassette, ReplayOptions } from './answer-types.js';
import { CassetteClock } from './cassette-clock.js';
import { LARGE_BODY, pathnameOf, recordedShape, shapeKey } from './match-request.js';

/**
 * The recorded interactions of a set, grouped by request shape. Opening a
 * replay only sorts interactions by path; a path's shapes are built when a
 * request first takes it (a big cassette opens in a fraction of the time).
 */
export class RouteIndex {
  readonly entries: Entry[] = [];
  private readonly groups = new Map<string, Entry[]>();
  /** Entries per path (no query) whose shapes are not yet computed. */
  private readonly pending = new Map<string, Entry[]>();
  /** A bodiless recording by its method and path as recorded, when nothing in them was redacted (see `exact`). */
  private readonly verbatim = new Map<string, Entry>();

  constructor(
    cassettes: readonly NamedCassette[],
    private readonly options: ReplayOptions,
  ) {
    // Paths holding a large stored body are indexed now, before any client waits: hashing it takes a while.
    const eager = new Set<string>();
    for (const [index, { name, cassette }] of cassettes.entries()) {
      const clock = new CassetteClock(cassette);
      for (const interaction of cassette.interactions) {
        const entry: Entry = { name, index, clock, interaction, anchor: clock.anchorAtOrBefore(interaction.seq - 1), served: false };
        this.entries.push(entry);
        const route = pathnameOf(interaction.request.path);
        const waiting = this.pending.get(route);
        if (waiting) waiting.push(entry);
        else this.pending.set(route, [entry]);
        if (storedLarge(interaction.request.body)) eager.add(route);
        const exact = !options.matchHeaders?.length && isVerbatim(interaction.request);
        if (exact && !this.verbatim.has(verbatimKey(interaction.request))) this.verbatim.set(verbatimKey(interaction.request), entry);
      }
    }
    for (const route of eager) this.indexRoute(route);
  }

  /** The entries recorded with this shape key, in recorded order; the path is indexed first. */
  group(pathname: string, key: string): Entry[] | undefined {
    this.indexRoute(pathname);
    return this.groups.get(key);
  }

  /**
   * The group of a bodiless request sent exactly as a recording holds it, found without redacting or shaping the
   * request: a recorded path with no placeholder is one redaction left as it was, and equal requests have equal shapes.
   */
  exact(method: string, path: string): { key: string; group: Entry[] } | undefined {
    const entry = this.verbatim.get(verbatimKey({ method, path }));
    if (!entry) return undefined;
    this.indexRoute(pathnameOf(entry.interaction.request.path));
    const group = entry.key === undefined ? undefined : this.groups.get(entry.key);
    return group && { key: entry.key as string, group };
  }

  /** Every path indexed: for a near-miss report or the list of unused interactions. */
  indexAll(): void {
    for (const route of [...this.pending.keys()]) this.indexRoute(route);
  }

  /** Every group, every path indexed. */
  allGroups(): IterableIterator<Entry[]> {
    this.indexAll();
    return this.groups.values();
  }

  /** Builds the shapes of one path's entries and files them in their groups, in recorded order. */
  private indexRoute(route: string): void {
    const waiting = this.pending.get(route);
    if (!waiting) return;
    this.pending.delete(route);
    for (const entry of waiting) {
      const shape = recordedShape(entry.interaction, this.options);
      entry.shape = shape;
      const key = (entry.key = shapeKey(shape));
      const group = this.groups.get(key);
      if (group) group.push(entry);
      else this.groups.set(key, [entry]);
    }
  }
}

/** A recorded body that may be over `LARGE_BODY` once decoded (a JSON one is measured only when its path is first asked). */
function storedLarge(body: Body | undefined): boolean {
  if (!body) return false;
  if ('text' in body) return body.text.length * 3 > LARGE_BODY;
  if ('base64' in body) return body.base64.length * 3 > LARGE_BODY * 4;
  return false;
}

const verbatimKey = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

/** A recorded request with no body and nothing redacted in its path (a placeholder, raw or URL-encoded, holds a `<`). */
function isVerbatim(request: { path: string; body?: Body | undefined }): boolean {
  const body = request.body;
  const bodiless = !body || ('text' in body && body.text === '') || ('base64' in body && body.base64 === '');
  return bodiless && !request.path.includes('<') && !/%3c/i.test(request.path);
}
