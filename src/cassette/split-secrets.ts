import type { SseItem } from './schema.js';
import type { SecretFinding } from './secret-rules.js';

/**
 * Secrets a model streams in pieces: `"sk-ab"` in one delta, `"cd…"` in the
 * next. No single event holds the secret, so each stream's text is assembled
 * the way a client assembles it (the string at one JSON path, event after
 * event of one type), searched whole, and every finding that spans events is
 * cut out of each piece: the first piece gets the placeholder, the rest lose
 * their share, so the assembled text reads the placeholder once.
 */

type Path = (string | number)[];
interface Piece {
  event: number;
  path: Path;
  start: number;
  value: string;
}

/**
 * Every string leaf with its path, and a key naming the path (the same path, the same key). The path is one array
 * grown and shrunk on the way down, copied only at a leaf: an SSE item's data is walked on every journal flush.
 */
function leaves(value: unknown, path: Path, key: string, out: { path: Path; key: string; value: string }[]): void {
  if (typeof value === 'string') out.push({ path: [...path], key, value });
  else if (Array.isArray(value))
    for (let k = 0; k < value.length; k++) {
      path.push(k);
      leaves(value[k], path, `${key},${k}`, out);
      path.pop();
    }
  else if (value && typeof value === 'object')
    for (const k of Object.keys(value)) {
      path.push(k);
      leaves((value as Record<string, unknown>)[k], path, `${key},${JSON.stringify(k)}`, out);
      path.pop();
    }
}

/** Parsed JSON data, or undefined for data that is not JSON. */
export type ParseData = (data: string) => unknown;

/** Each stream text: the pieces at one JSON path (or the whole data, for text) of events of one type, in order. */
function streams(events: SseItem[], parse: ParseData): Map<string, Piece[]> {
  const byKey = new Map<string, Piece[]>();
  const found: { path: Path; key: string; value: string }[] = [];
  events.forEach((e, index) => {
    if (e.data === undefined) return;
    const json = parse(e.data);
    found.length = 0;
    if (json === undefined) found.push({ path: [], key: '#text', value: e.data });
    else leaves(json, [], '', found);
    for (const { path, key, value } of found) {
      const streamKey = `${e.event ?? 'message'}\u0000${key}`;
      let list = byKey.get(streamKey);
      if (!list) byKey.set(streamKey, (list = []));
      const last = list.at(-1);
      list.push({ event: index, path, start: last ? last.start + last.value.length : 0, value });
    }
  });
  return byKey;
}

/** One stream of two pieces or more, and its text as a client assembles it. */
export interface StreamText {
  readonly pieces: readonly Piece[];
  readonly text: string;
}

/** The streams of the items that have two pieces or more: only those can hold a secret no single item holds. */
export function streamTexts(events: SseItem[], parse: ParseData): StreamText[] {
  if (events.length < 2) return [];
  const out: StreamText[] = [];
  for (const pieces of streams(events, parse).values())
    if (pieces.length >= 2) out.push({ pieces, text: pieces.map((p) => p.value).join('') });
  return out;
}

const touching = (stream: StreamText, f: SecretFinding) =>
  stream.pieces.filter((p) => p.start < f.end && p.start + p.value.length > f.start);

/** The findings in a stream's text that span two pieces or more: those a scrub of each item alone leaves. */
export function spanning(stream: StreamText, findings: readonly SecretFinding[]): SecretFinding[] {
  return findings.filter((f) => touching(stream, f).length >= 2);
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
 */
export function cutSpanning(
  events: SseItem[],
  parse: ParseData,
  found: readonly { stream: StreamText; finding: SecretFinding }[],
  placeholder: (kind: string) => string,
): SseItem[] {
  if (found.length === 0) return events;
  const all: Cut[] = [];
  for (const { stream, finding: f } of found)
    touching(stream, f).forEach((p, k) => {
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
