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

function leaves(value: unknown, path: Path, out: { path: Path; value: string }[]): void {
  if (typeof value === 'string') out.push({ path, value });
  else if (Array.isArray(value)) {
    for (const [k, v] of value.entries()) leaves(v, [...path, k], out);
  } else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) leaves(v, [...path, k], out);
}

function parsed(data: string): unknown {
  const c = data.trimStart()[0];
  if (c !== '{' && c !== '[') return undefined;
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}

/** Each stream text: the pieces at one JSON path (or the whole data, for text) of events of one type, in order. */
function streams(events: SseItem[]): Map<string, Piece[]> {
  const byKey = new Map<string, Piece[]>();
  events.forEach((e, index) => {
    if (e.data === undefined) return;
    const json = parsed(e.data);
    const found: { path: Path; value: string }[] = [];
    if (json === undefined) found.push({ path: [], value: e.data });
    else leaves(json, [], found);
    for (const { path, value } of found) {
      const key = `${e.event ?? 'message'}\u0000${json === undefined ? '#text' : JSON.stringify(path)}`;
      const list = byKey.get(key) ?? [];
      const last = list.at(-1);
      list.push({ event: index, path, start: last ? last.start + last.value.length : 0, value });
      byKey.set(key, list);
    }
  });
  return byKey;
}

interface Cut {
  piece: Piece;
  from: number;
  to: number;
  replacement: string;
}

/** The findings in assembled stream text that no single event holds, and the cuts that remove them. */
function cuts(
  events: SseItem[],
  find: (text: string) => SecretFinding[],
  placeholder: (kind: string) => string,
): { findings: SecretFinding[]; cuts: Cut[] } {
  const out: Cut[] = [];
  const findings: SecretFinding[] = [];
  for (const pieces of streams(events).values()) {
    if (pieces.length < 2) continue;
    const text = pieces.map((p) => p.value).join('');
    for (const f of find(text)) {
      const touched = pieces.filter((p) => p.start < f.end && p.start + p.value.length > f.start);
      if (touched.length < 2) continue;
      findings.push(f);
      touched.forEach((p, k) => {
        out.push({
          piece: p,
          from: Math.max(0, f.start - p.start),
          to: Math.min(p.value.length, f.end - p.start),
          replacement: k === 0 ? placeholder(f.kind) : '',
        });
      });
    }
  }
  return { findings, cuts: out };
}

/** Secrets that only the assembled text of a stream shows. */
export function splitSecrets(events: SseItem[], find: (text: string) => SecretFinding[]): SecretFinding[] {
  if (events.length < 2) return [];
  return cuts(events, find, () => '').findings;
}

function setAt(value: unknown, path: Path, leaf: string): unknown {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path as [string | number, ...Path];
  if (Array.isArray(value)) return value.map((v, k) => (k === head ? setAt(v, rest, leaf) : v));
  const obj = value as Record<string, unknown>;
  return { ...obj, [head]: setAt(obj[head as string], rest, leaf) };
}

/** The events with every secret split across them cut out; events nothing spans are returned as they were. */
export function scrubSplitSecrets(
  events: SseItem[],
  find: (text: string) => SecretFinding[],
  placeholder: (kind: string) => string,
): SseItem[] {
  if (events.length < 2) return events;
  const { cuts: all } = cuts(events, find, placeholder);
  if (all.length === 0) return events;
  // Per piece, cut right to left so earlier offsets stay true.
  const byPiece = new Map<Piece, Cut[]>();
  for (const c of all) byPiece.set(c.piece, [...(byPiece.get(c.piece) ?? []), c]);
  const out = [...events];
  const byEvent = new Map<number, Piece[]>();
  for (const p of byPiece.keys()) byEvent.set(p.event, [...(byEvent.get(p.event) ?? []), p]);
  for (const [index, pieces] of byEvent) {
    const event = events[index] as SseItem;
    const json = parsed(event.data as string);
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
