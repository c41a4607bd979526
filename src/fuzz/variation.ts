import { z } from 'zod';
import { type Cassette, frameJson, type Interaction, type SseItem, type WsFrame } from '../cassette/index.js';
import { frameType, itemType, type Pack } from '../contracts/index.js';
import { FuzzError } from './errors.js';
import { moveEvent } from './key-order.js';
import { labelOf } from './labels.js';
import { violationsOf } from './legality.js';
import { type KeepsMeaning, keepsMeaningIn } from './meaning.js';
import { packsFor } from './packs-for.js';
import { changedPayload } from './payload-changes.js';

const index = z.number().int().nonnegative();

/**
 * One edit of a recorded stream. Indices are taken modulo what is there when
 * the edit applies, so every generated edit means something and shrinks to 0.
 */
export const editSchema = z.discriminatedUnion('op', [
  /** Move an event among those released by the same request (same `after`): causality stays intact. */
  z.strictObject({ op: z.literal('move'), stream: index, event: index, to: index }),
  /** Insert a copy of an optional event (a heartbeat, a status flap) found in the cassette. */
  z.strictObject({ op: z.literal('insert'), stream: index, at: index, source: index }),
  /** Delete an optional event. */
  z.strictObject({ op: z.literal('delete'), stream: index, event: index }),
  /** Delete every event of one optional type from a stream: a short reply sent whole, a server that never flaps. */
  z.strictObject({ op: z.literal('collapse'), stream: index, type: index }),
  /** Drop, null or add a field of an event's data, kept valid for its payload schema. */
  z.strictObject({ op: z.literal('payload'), stream: index, event: index, change: index }),
  /** Insert an SSE comment line (only where no pack forbids comments). */
  z.strictObject({ op: z.literal('comment'), stream: index, at: index }),
]);
export type Edit = z.infer<typeof editSchema>;

/** Where a stream's bytes are cut into separate chunks: any byte, inside a line ending, or inside a UTF-8 character. */
export const cutSchema = z.strictObject({ stream: index, kind: z.enum(['any', 'line-end', 'utf8']), at: index });
export type Cut = z.infer<typeof cutSchema>;

export const transportSchema = z.strictObject({ eol: z.enum(['lf', 'crlf', 'cr']), cuts: z.array(cutSchema) });
export type Transport = z.infer<typeof transportSchema>;

/** A variation of a cassette: edits of its streams, then how their bytes travel. */
export const variationSchema = z.strictObject({ edits: z.array(editSchema), transport: transportSchema });
export type Variation = z.infer<typeof variationSchema>;

/** What can vary in one cassette under its packs; computed once, used for every variation. */
export interface VariationSpace {
  name: string;
  base: Cassette;
  packs: Pack[];
  /** Indices (into `interactions`) of the interactions that hold an SSE stream or a WebSocket session. */
  streams: number[];
  /** Those of them that are SSE streams: only their bytes travel as chunks a transport can cut. */
  sse: number[];
  /** Event types some pack lists as optional, minus the kept ones. */
  optional: Set<string>;
  /** Optional events found anywhere in the cassette: what inserts copy. */
  sources: SseItem[];
  /** Event types the property under test observes: never inserted or deleted. */
  keep: Set<string>;
  /** Event types a pack lets come in any order among themselves (`reorderable`): moves may pass one of its key. */
  reorderable: Set<string>;
  comments: boolean;
}

export interface VariedCassette {
  cassette: Cassette;
  /** Each edit that applied, in words; edits that did nothing or would break a pack are left out. */
  applied: string[];
  /** Seqs of the interactions whose streams changed. */
  changed: number[];
}

/** Works out what may vary in `cassette`; it must already satisfy its packs. */
export function variationSpace(
  cassette: Cassette,
  name: string,
  options: { packs?: readonly (string | Pack)[]; keep?: readonly string[] } = {},
) {
  const packs = packsFor(cassette, name, options.packs);
  const keep = new Set(options.keep ?? []);
  const optional = new Set(packs.flatMap((p) => p.optional ?? []).filter((t) => !keep.has(t)));
  const streams = cassette.interactions.flatMap((i, n) => (i.response?.stream || i.response?.websocket ? [n] : []));
  const sse = streams.filter((n) => cassette.interactions[n]?.response?.stream);
  const seen = new Set<string>();
  const sources: SseItem[] = [];
  for (const n of streams) {
    for (const item of itemsOf(cassette.interactions[n] as Interaction)) {
      const key = `${item.event ?? ''}\n${item.data ?? ''}`;
      if (optional.has(itemType(item)) && !seen.has(key)) {
        seen.add(key);
        sources.push(item);
      }
    }
  }
  const space: VariationSpace = {
    name,
    base: cassette,
    packs,
    streams,
    sse,
    optional,
    sources,
    keep,
    reorderable: new Set(packs.flatMap((p) => p.reorderable ?? [])),
    comments: !packs.some((p) => p.rules.some((r) => r.kind === 'framing' && r.forbid.includes('comment'))),
  };
  const broken = violationsOf(cassette, space);
  if (broken.length > 0) {
    const v = broken[0];
    throw new FuzzError(
      'cassette_breaks_packs',
      `${name} already breaks ${v?.pack} ${v?.rule} (${v?.message}); fuzzing starts from a clean cassette: run bench verify`,
    );
  }
  return space;
}

/** A copy of the cassette whose streams and sessions can be edited without touching the original. */
function editableCopy(cassette: Cassette): Cassette {
  return {
    ...cassette,
    interactions: cassette.interactions.map((i) => {
      const { stream, websocket } = i.response ?? {};
      // Variations are written in canonical SSE: the recorded wire text of an event (`raw`) would no longer be its own.
      if (stream && i.response)
        return { ...i, response: { ...i.response, stream: { ...stream, events: stream.events.map(({ raw: _raw, ...e }) => e) } } };
      if (websocket && i.response) return { ...i, response: { ...i.response, websocket: { ...websocket, frames: [...websocket.frames] } } };
      return i;
    }),
  };
}

/** A server's JSON frame (stored compact or as text): the only kind the fuzzer edits (the client's are what replay matches). */
const editableFrame = (f: WsFrame) => f.from === 'server' && ((json) => typeof json === 'object' && json !== null)(frameJson(f));

/**
 * What the edits work on: an SSE stream's events, or a WebSocket session's
 * server JSON frames as items typed by their JSON-RPC method, so moves,
 * inserts, deletes and payload changes mean the same on both.
 */
function itemsOf(interaction: Interaction): SseItem[] {
  const { stream, websocket } = interaction.response ?? {};
  if (stream) return stream.events;
  return (websocket?.frames ?? [])
    .filter(editableFrame)
    .map((f) => ({ at: f.at, after: f.after, event: frameType(f), data: JSON.stringify(frameJson(f)) }));
}

/**
 * Puts edited server frames back among the session's other frames. A server
 * frame recorded with `after = k` arrived after the client frame of seq k and
 * before the next, so ordering by (seq or after, side) rebuilds the session;
 * server frames keep their edited order, frames the fuzzer leaves alone come
 * last among those released together (a close stays last).
 */
function writeFrames(frames: WsFrame[], items: SseItem[]): WsFrame[] {
  const keyed: { key: number; rank: number; order: number; frame: WsFrame }[] = [];
  frames.forEach((f, order) => {
    if (editableFrame(f)) return;
    keyed.push({ key: f.from === 'client' ? (f.seq as number) : f.after, rank: f.from === 'client' ? 0 : 2, order, frame: f });
  });
  items.forEach((item, order) => {
    const frame = { at: item.at, from: 'server', after: item.after, json: JSON.parse(item.data as string) } as WsFrame;
    keyed.push({ key: item.after, rank: 1, order, frame });
  });
  keyed.sort((a, b) => a.key - b.key || a.rank - b.rank || a.order - b.order);
  return keyed.map((k) => k.frame);
}

/** An item placed at `p`: its `after` is its predecessor's, so it is released with it. */
function placed(events: SseItem[], p: number, fields: Omit<SseItem, 'at' | 'after'>): SseItem {
  const near = (events[p - 1] ?? events[p]) as SseItem;
  return { ...fields, at: near.at, after: near.after };
}

/** Applies one edit in place; returns what it did, or undefined when it does not apply. `frames`: the items are a WebSocket session's. */
function applyEdit(space: VariationSpace, events: SseItem[], edit: Edit, frames: boolean, keeps: KeepsMeaning): string | undefined {
  const n = events.length;
  if (n === 0) return undefined;
  switch (edit.op) {
    case 'move':
      return moveEvent(events, edit, space.reorderable);
    case 'insert': {
      if (space.sources.length === 0) return undefined;
      const p = edit.at % (n + 1);
      const { at: _at, after: _after, ...fields } = space.sources[edit.source % space.sources.length] as SseItem;
      const item = placed(events, p, fields);
      events.splice(p, 0, item);
      return `inserted ${labelOf(item)} at #${p}`;
    }
    case 'delete': {
      const i = edit.event % n;
      const item = events[i] as SseItem;
      if (!space.optional.has(itemType(item))) return undefined;
      events.splice(i, 1);
      return `deleted ${labelOf(item)} #${i}`;
    }
    case 'collapse': {
      const types = [...new Set(events.map(itemType))].filter((t) => space.optional.has(t));
      const type = types[edit.type % Math.max(1, types.length)];
      if (type === undefined) return undefined;
      const kept = events.filter((e) => itemType(e) !== type);
      const removed = n - kept.length;
      events.splice(0, n, ...kept);
      return `deleted all ${removed} ${type}`;
    }
    case 'payload': {
      const i = edit.event % n;
      const item = events[i] as SseItem;
      const changed = changedPayload(item, edit.change, frames, keeps);
      if (!changed) return undefined;
      events[i] = changed.item;
      return `${labelOf(item)} #${i}: ${changed.said}`;
    }
    case 'comment': {
      if (!space.comments || frames) return undefined;
      const p = edit.at % (n + 1);
      events.splice(p, 0, placed(events, p, { comment: ' tapedeck-fuzz' }));
      return `inserted a comment line at #${p}`;
    }
  }
}

/**
 * Applies a variation's edits one by one; an edit after which the cassette
 * would break one of its packs is undone, so only legal streams come out.
 * `unchecked` skips that guard: tests use it to prove the guard matters.
 */
export function applyVariation(space: VariationSpace, variation: Variation, options: { unchecked?: boolean } = {}): VariedCassette {
  const cassette = editableCopy(space.base);
  const applied: string[] = [];
  const changed = new Set<number>();
  if (space.streams.length === 0) return { cassette, applied, changed: [] };
  for (const edit of variation.edits) {
    const interaction = cassette.interactions[space.streams[edit.stream % space.streams.length] as number] as Interaction;
    const { stream, websocket } = interaction.response ?? {};
    const keeps = keepsMeaningIn(space.packs, interaction);
    if (stream) {
      const before = [...stream.events];
      const did = applyEdit(space, stream.events, edit, false, keeps);
      if (did === undefined) continue;
      if (!options.unchecked && violationsOf(cassette, space).length > 0) {
        stream.events = before;
        continue;
      }
      applied.push(`${did} (stream of seq ${interaction.seq})`);
      changed.add(interaction.seq);
    } else if (websocket) {
      const before = websocket.frames;
      const items = itemsOf(interaction);
      const did = applyEdit(space, items, edit, true, keeps);
      if (did === undefined) continue;
      websocket.frames = writeFrames(before, items);
      if (!options.unchecked && violationsOf(cassette, space).length > 0) {
        websocket.frames = before;
        continue;
      }
      applied.push(`${did} (session of seq ${interaction.seq})`);
      changed.add(interaction.seq);
    }
  }
  return { cassette, applied, changed: [...changed].sort((a, b) => a - b) };
}
