import type { SseItem } from '../cassette/index.js';
import { itemType, keyFields } from '../contracts/index.js';
import { labelOf } from './labels.js';

/** The key values an event carries (`item_id=msg_1`), read from its JSON data; none for text or a comment. */
export function keysOf(item: SseItem): Set<string> {
  const keys = new Set<string>();
  if (item.data === undefined) return keys;
  try {
    for (const [path, value] of keyFields(JSON.parse(item.data))) keys.add(`${path}=${value}`);
  } catch {
    // Not JSON: nothing names what it belongs to.
  }
  return keys;
}

/** Which events a move of `item` may pass: not one of its type that shares a key value with it (unless reorderable). */
function passable(item: SseItem, reorderable: ReadonlySet<string>): (other: SseItem) => boolean {
  const type = itemType(item);
  if (reorderable.has(type)) return () => true;
  const keys = keysOf(item);
  return (e) => {
    if (itemType(e) !== type) return true;
    for (const k of keysOf(e)) if (keys.has(k)) return false;
    return true;
  };
}

/** Keeps recorded times in order around an event placed at `k`. */
function fitTime(events: SseItem[], k: number): void {
  const item = events[k] as SseItem;
  const lo = events[k - 1]?.at ?? Number.NEGATIVE_INFINITY;
  const hi = events[k + 1]?.at ?? Number.POSITIVE_INFINITY;
  const at = Math.min(Math.max(item.at, lo), Math.max(lo, hi));
  if (at !== item.at) events[k] = { ...item, at };
}

/**
 * Moves event `event` among those released by the same request (same `after`), never past an event of its type
 * and key (a message's deltas keep their order, whatever the pack says, unless it lists the type as reorderable).
 * Returns what it did, or undefined when the move does not apply.
 */
export function moveEvent(events: SseItem[], edit: { event: number; to: number }, reorderable: ReadonlySet<string>): string | undefined {
  const n = events.length;
  const i = edit.event % n;
  const item = events[i] as SseItem;
  let first = i;
  let last = i;
  while (first > 0 && (events[first - 1] as SseItem).after === item.after) first--;
  while (last < n - 1 && (events[last + 1] as SseItem).after === item.after) last++;
  const to = first + (edit.to % (last - first + 1));
  if (to === i) return undefined;
  const passed = to > i ? events.slice(i + 1, to + 1) : events.slice(to, i);
  if (!passed.every(passable(item, reorderable))) return undefined;
  events.splice(i, 1);
  events.splice(to, 0, item);
  fitTime(events, to);
  return `moved ${labelOf(item)} from #${i} to #${to}`;
}
