import type { SseItem } from '../schema.js';
import type { SecretFinding } from './secret-rules.js';

/**
 * Secrets a model streams in pieces: `"sk-ab"` in one delta, `"cd…"` in the
 * next. No single event holds the secret, so each stream's text is assembled
 * the way a client assembles it (the string at one JSON path, event after
 * event of one type), searched whole, and every finding that spans events,
 * or that one event alone does not show, is cut out of each piece: the first
 * piece gets the placeholder, the rest lose their share, so the assembled
 * text reads the placeholder once. The redactor does this before it scrubs
 * each event alone, and reads WebSocket frames the same way.
 */

type Path = (string | number)[];
interface Piece {
  event: number;
  path: Path;
  start: number;
  value: string;
}

/** Parsed JSON data, or undefined for data that is not JSON. */
export type ParseData = (data: string) => unknown;

/** One stream: a JSON path under one event type (the root: data that is not JSON), its path made once, its pieces in order. */
interface PathNode {
  readonly path: Path;
  readonly pieces: Piece[];
  readonly children: Map<string | number, PathNode>;
}

/**
 * Each stream text: the pieces at one JSON path (or the whole data, for text) of events of one type, in order
 * of first appearance. Paths are a tree of maps, so a leaf costs a lookup per key, no key string and no path copy:
 * an SSE item's data is walked on every journal window.
 */
function streams(events: SseItem[], parse: ParseData): PathNode[] {
  const roots = new Map<string, PathNode>();
  const order: PathNode[] = [];
  const made = (path: Path): PathNode => {
    const node = { path, pieces: [], children: new Map() };
    order.push(node);
    return node;
  };
  const add = (node: PathNode, event: number, value: string) => {
    const last = node.pieces.at(-1);
    node.pieces.push({ event, path: node.path, start: last ? last.start + last.value.length : 0, value });
  };
  const walk = (value: unknown, node: PathNode, event: number): void => {
    if (typeof value === 'string') add(node, event, value);
    else if (Array.isArray(value)) for (let k = 0; k < value.length; k++) walk(value[k], childOf(node, k), event);
    else if (value && typeof value === 'object')
      for (const k of Object.keys(value)) walk((value as Record<string, unknown>)[k], childOf(node, k), event);
  };
  const childOf = (node: PathNode, k: string | number): PathNode => {
    let child = node.children.get(k);
    if (!child) node.children.set(k, (child = made([...node.path, k])));
    return child;
  };
  events.forEach((e, index) => {
    if (e.data === undefined) return;
    const type = e.event ?? 'message';
    let root = roots.get(type);
    if (!root) roots.set(type, (root = made([])));
    const json = parse(e.data);
    // JSON data is an object or an array: no string sits at its root, which holds the text of data that is not JSON.
    if (json === undefined) add(root, index, e.data);
    else walk(json, root, index);
  });
  return order;
}

/** One stream's pieces, and its text as a client assembles it. */
export interface StreamText {
  readonly pieces: readonly Piece[];
  readonly text: string;
}

/**
 * The streams of the items that have `fewest` pieces or more: by default two, as only those can hold a secret no
 * single item holds. A value every item repeats (an id, a type) spells nothing out: its path is left out.
 */
export function streamTexts(events: SseItem[], parse: ParseData, fewest = 2): StreamText[] {
  if (events.length < fewest) return [];
  const out: StreamText[] = [];
  for (const { pieces } of streams(events, parse)) {
    if (pieces.length < Math.max(1, fewest)) continue;
    const first = pieces[0]?.value;
    if (pieces.length > 1 && pieces.every((p) => p.value === first)) continue;
    out.push({ pieces, text: pieces.map((p) => p.value).join('') });
  }
  return out;
}

const touching = (stream: StreamText, f: SecretFinding) =>
  stream.pieces.filter((p) => p.start < f.end && p.start + p.value.length > f.start);

/**
 * The findings in a stream's text that a scrub of each item alone leaves: those that span two pieces or more, and,
 * with `find`, those within one piece that `find` does not see in that piece alone (`password: ` in one delta, the
 * password in the next).
 */
export function spanning(
  stream: StreamText,
  findings: readonly SecretFinding[],
  find?: (text: string) => readonly { value: string }[],
): SecretFinding[] {
  return findings.filter((f) => {
    const pieces = touching(stream, f);
    if (pieces.length >= 2) return true;
    const [piece] = pieces;
    return find !== undefined && piece !== undefined && !find(piece.value).some((g) => g.value === f.value);
  });
}

interface Cut {
  piece: Piece;
  from: number;
  to: number;
  replacement: string;
}

function setAt(value: unknown, path: Path, leaf: string): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path as [string | number, ...Path];
  if (Array.isArray(value)) return value.map((v, k) => (k === head ? setAt(v, rest, leaf) : v));
  const obj = value as Record<string, unknown>;
  return { ...obj, [head]: setAt(obj[head as string], rest, leaf) };
}

/**
 * The events with each spanning finding cut out of its pieces (streams from `streamTexts` of these events): the
 * first piece gets the placeholder, the rest lose their share. Events nothing spans are returned as they were.
 * The first `fixed` events are context already written elsewhere: they are not cut, and the placeholder goes to
 * the first piece after them.
 */
export function cutSpanning(
  events: SseItem[],
  parse: ParseData,
  found: readonly { stream: StreamText; finding: SecretFinding }[],
  placeholder: (kind: string) => string,
  fixed = 0,
): SseItem[] {
  if (found.length === 0) return events;
  const all: Cut[] = [];
  for (const { stream, finding: f } of found)
    touching(stream, f)
      .filter((p) => p.event >= fixed)
      .forEach((p, k) => {
        all.push({
          piece: p,
          from: Math.max(0, f.start - p.start),
          to: Math.min(p.value.length, f.end - p.start),
          replacement: k === 0 ? placeholder(f.kind) : '',
        });
      });
  // Per piece, cut right to left so earlier offsets stay true.
  const byPiece = new Map<Piece, Cut[]>();
  for (const c of all) byPiece.set(c.piece, [...(byPiece.get(c.piece) ?? []), c]);
  const out = [...events];
  const byEvent = new Map<number, Piece[]>();
  for (const p of byPiece.keys()) byEvent.set(p.event, [...(byEvent.get(p.event) ?? []), p]);
  for (const [index, pieces] of byEvent) {
    const event = events[index] as SseItem;
    const json = parse(event.data as string);
    let data: unknown = json;
    let text = event.data as string;
    for (const p of pieces) {
      let value = p.value;
      for (const c of (byPiece.get(p) as Cut[]).sort((a, b) => b.from - a.from))
        value = `${value.slice(0, c.from)}${c.replacement}${value.slice(c.to)}`;
      if (json === undefined) text = value;
      else data = setAt(data, p.path, value);
    }
    const { raw: _raw, ...rest } = event;
    out[index] = { ...rest, data: json === undefined ? text : JSON.stringify(data) };
  }
  return out;
}
