import { isRecord, type SseItem } from '../cassette/index.js';
import type { KeepsMeaning } from './meaning.js';
/** One change of an event's JSON data: a field dropped, set to null, or an unknown field added. */
export interface PayloadChange {
  kind: 'drop' | 'null' | 'extra';
  /** Keys from the data's root to the field (for `extra`, to the object that gains one). */
  path: string[];
}

/** The unknown field an `extra` change adds: non-ASCII on purpose, so byte cuts can land inside a character. */
export const EXTRA_FIELD = 'x_tapedeck_fuzz';
const EXTRA_VALUE = 'fuzz ✓ ü';

/**
 * Every change the fuzzer may try on `data`, in a stable order: each field down
 * to two levels dropped or nulled, and an unknown field on each object. The
 * pack's payload schema decides afterwards which of them are legal.
 */
export function payloadChanges(data: unknown): PayloadChange[] {
  const out: PayloadChange[] = [];
  const walk = (value: unknown, path: string[]) => {
    if (!isRecord(value)) return;
    out.push({ kind: 'extra', path });
    for (const [key, child] of Object.entries(value)) {
      if (path.length === 0 && key === 'type') continue; // the type names the event; it never varies
      out.push({ kind: 'drop', path: [...path, key] });
      if (child !== null) out.push({ kind: 'null', path: [...path, key] });
      if (path.length < 1) walk(child, [...path, key]);
    }
  };
  walk(data, []);
  return out;
}

/** A copy of `data` with the change made. */
export function applyPayloadChange(data: unknown, change: PayloadChange): unknown {
  const copy = structuredClone(data);
  const parentPath = change.kind === 'extra' ? change.path : change.path.slice(0, -1);
  let parent: unknown = copy;
  for (const key of parentPath) parent = isRecord(parent) ? parent[key] : undefined;
  if (!isRecord(parent)) return copy;
  const key = change.path[change.path.length - 1] as string;
  if (change.kind === 'extra') parent[EXTRA_FIELD] = EXTRA_VALUE;
  else if (change.kind === 'drop') delete parent[key];
  else parent[key] = null;
  return copy;
}

export function describePayloadChange(change: PayloadChange): string {
  const at = change.path.join('.');
  if (change.kind === 'extra') return `added unknown field ${[...change.path, EXTRA_FIELD].join('.')}`;
  return change.kind === 'drop' ? `dropped ${at}` : `set ${at} to null`;
}

/**
 * The `n`-th change of an event's JSON data (modulo how many there are), when it keeps the event's meaning.
 * A JSON-RPC message (`frames`) varies inside its params or result: its method and id are what replay matches on.
 */
export function changedPayload(
  item: SseItem,
  n: number,
  frames: boolean,
  keeps: KeepsMeaning,
): { item: SseItem; said: string } | undefined {
  if (item.data === undefined) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(item.data);
  } catch {
    return undefined;
  }
  const inner = frames ? (['params', 'result'] as const).find((k) => k in (data as object)) : undefined;
  if (frames && !inner) return undefined;
  const root = inner ? (data as Record<string, unknown>)[inner] : data;
  const changes = payloadChanges(root).map((c) => (inner ? { ...c, path: [inner, ...c.path] } : c));
  const change = changes[n % Math.max(1, changes.length)];
  if (!change || !keeps(item, data, change)) return undefined;
  return { item: { ...item, data: JSON.stringify(applyPayloadChange(data, change)) }, said: describePayloadChange(change) };
}
