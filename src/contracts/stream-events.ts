import { type Cassette, frameJson, type Interaction, readJson, type SseItem, type WsFrame } from '../cassette/index.js';
import { lastAtOrBelow } from '../fs/sorted-search.js';
import type { Segment } from './check-rules.js';
import type { CheckedEvent } from './selectors.js';

/** Which requests start a turn: a POST matching this path pattern (and body type, when given). */
export interface TurnStart {
  method: string;
  path: RegExp;
  /** The JSON body's `type` must be this, e.g. `message` (an interrupt is not a new turn). */
  bodyType?: string;
}

export interface StreamUnderCheck {
  interaction: Interaction;
  events: CheckedEvent[];
  /** Where each checked event sits in the recorded stream (comments are counted). */
  positions: number[];
  turns: Segment[];
}

function parseData(data: string | undefined): unknown {
  if (data === undefined) return undefined;
  const read = readJson(data);
  return read ? read.json : data;
}

/** The type of an SSE event: its `event:` name, `[DONE]`, the data's own type/event/object field, or `message`. */
export function eventType(item: Pick<SseItem, 'event' | 'data'>, data: unknown): string {
  if (item.event !== undefined) return item.event;
  if (item.data === '[DONE]') return '[DONE]';
  if (data && typeof data === 'object') {
    // Chat completion chunks name themselves only by `object`.
    const d = data as { type?: unknown; event?: unknown; object?: unknown };
    const own = d.type ?? d.event ?? d.object;
    if (typeof own === 'string') return own;
  }
  return 'message';
}

/** The type of a recorded stream item: a bare comment is `:comment`, anything else as `eventType` names it. */
export function itemType(item: SseItem, data?: unknown): string {
  if (item.comment !== undefined && item.event === undefined && item.data === undefined) return ':comment';
  // A caller that parsed the data already passes it: parsing is most of what checking a stream costs.
  return eventType(item, data === undefined ? parseData(item.data) : data);
}

/**
 * The type of a WebSocket frame: a server message's JSON-RPC `method` (or
 * `response`), the same prefixed `client:` for the client's frames; `:close`
 * for a close, `message` for other text or binary.
 */
export function frameType(f: WsFrame): string {
  const side = f.from === 'client' ? 'client:' : '';
  if (f.close) return ':close';
  const json = frameJson(f);
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const m = json as { method?: unknown };
    return `${side}${typeof m.method === 'string' ? m.method : 'response'}`;
  }
  return `${side}message`;
}

function startsTurn(i: Interaction, starts: readonly TurnStart[]): boolean {
  return starts.some((s) => {
    if (i.request.method !== s.method || !s.path.test(i.request.path.split('?')[0] ?? '')) return false;
    if (s.bodyType === undefined) return true;
    const body = i.request.body;
    return body !== undefined && 'json' in body && (body.json as { type?: unknown } | null)?.type === s.bodyType;
  });
}

/** A stream's or session's events, parsed once however many packs check it. */
export interface ParsedStream {
  events: CheckedEvent[];
  positions: number[];
  /** Per event, the seq of the request it followed (0 for a WebSocket frame: no turns). */
  after: number[];
}

/**
 * Every stream and session of a cassette parsed, by interaction. Parsing each
 * event's data is most of what checking costs: one check of a cassette parses
 * once for all its packs. Not kept across checks: the fuzzer edits streams in place.
 */
export function parseStreams(cassette: Cassette): Map<Interaction, ParsedStream> {
  const out = new Map<Interaction, ParsedStream>();
  for (const interaction of cassette.interactions) {
    const parsed = parseStream(interaction);
    if (parsed) out.set(interaction, parsed);
  }
  return out;
}

function parseStream(interaction: Interaction): ParsedStream | undefined {
  let parsed: ParsedStream | undefined;
  const websocket = interaction.response?.websocket;
  const stream = interaction.response?.stream;
  if (websocket) {
    // A WebSocket session is one stream of both sides' frames, checked as a whole (no turns).
    const events = websocket.frames.map((f): CheckedEvent => ({ type: frameType(f), data: frameJson(f) ?? f.text ?? f.close }));
    parsed = { events, positions: events.map((_, i) => i), after: [] };
  } else if (stream) {
    const n = stream.events.length;
    parsed = { events: new Array(n), positions: new Array(n), after: new Array(n) };
    for (let position = 0; position < n; position++) {
      const item = stream.events[position] as SseItem;
      const data = parseData(item.data);
      parsed.events[position] = { type: itemType(item, data), data, id: item.id, retry: item.retry, comment: item.comment };
      parsed.positions[position] = position;
      parsed.after[position] = item.after;
    }
  }
  return parsed;
}

/**
 * Every SSE stream (and WebSocket session) of a cassette as checkable events, with its turns: a turn
 * is the events caused by one turn-starting request (by their `after` link),
 * up to the next one.
 */
export function streamsOf(
  cassette: Cassette,
  starts: readonly TurnStart[],
  parsedStreams: Map<Interaction, ParsedStream> = parseStreams(cassette),
): StreamUnderCheck[] {
  const turnSeqs = cassette.interactions
    .filter((i) => startsTurn(i, starts))
    .map((i) => i.seq)
    .sort((a, b) => a - b);
  const out: StreamUnderCheck[] = [];
  for (const interaction of cassette.interactions) {
    const parsed = parsedStreams.get(interaction);
    if (!parsed) continue;
    const { events, positions } = parsed;
    const turns: Segment[] = [];
    if (interaction.response?.websocket) {
      out.push({ interaction, events, positions, turns });
      continue;
    }
    let lastTurn = -1;
    for (let i = 0; i < events.length; i++) {
      // A turn's events are those its request caused on a stream already open when it was made.
      let t = turnSeqs.length === 0 ? -1 : lastAtOrBelow(turnSeqs, parsed.after[i] as number);
      if (t !== -1 && (turnSeqs[t] as number) < interaction.seq) t = -1;
      if (t === -1) continue;
      const last = turns[turns.length - 1];
      if (last && lastTurn === t) last.end = i + 1;
      else turns.push({ start: i, end: i + 1 });
      lastTurn = t;
    }
    out.push({ interaction, events, positions, turns });
  }
  return out;
}
