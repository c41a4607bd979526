import { jsonDepthWithin } from '../body.js';
import type { SseItem, WsFrame } from '../schema.js';
import type { PieceContext } from './config.js';
import type { ShapeFinder } from './finder.js';
import type { SecretFinding } from './secret-rules.js';
import { type StreamText, streamTexts } from './split-secrets.js';

/** A stream of SSE items and what the secret rules find in its text. */
export interface Searched {
  stream: StreamText;
  findings: SecretFinding[];
}

// The longest text a session remembers for the next windows: SSE data, not bodies.
const REMEMBERED_TEXT = 4096;
// A stream with no items before it; never added to.
const NO_ITEMS: SseItem[] = [];

/** Text worth parsing as JSON: an object or array nested no deeper than a cassette keeps structure. */
function looksLikeJson(text: string): boolean {
  const c = text.trimStart().charCodeAt(0);
  return (c === 123 || c === 91) && jsonDepthWithin(text);
}

/**
 * One pass of a redactor over a piece of a recording. An SSE item's data is read to learn its secrets, to assemble
 * its streams and to scrub it: within one pass each text is parsed once and each stream assembled and searched
 * once, and both are shared, never changed.
 */
export class Pass {
  /** What the pass under way parsed, searched and framed; none between passes. */
  private caches: { parsed: Map<string, unknown>; streams: Map<SseItem[], Searched[]>; framed: Map<WsFrame[], SseItem[]> } | undefined;
  /** Texts parsed by earlier passes (a journal session's recent ones), asked before parsing again; and those this pass parsed. */
  private earlier: Map<string, unknown> | undefined;
  private fresh: string[] = [];
  /** For a pass over a piece of a recording: a stream's items an earlier piece held (context for split secrets). */
  context: PieceContext | undefined;

  constructor(private readonly finder: ShapeFinder) {}

  /**
   * Runs a pass (or goes on with the one under way). With `remembered`, texts earlier passes parsed are taken from
   * it, and the short texts this one parsed are added to it.
   */
  run<T>(pass: () => T, remembered?: Map<string, unknown>): T {
    if (this.caches) return pass();
    const caches = { parsed: new Map<string, unknown>(), streams: new Map(), framed: new Map() };
    [this.caches, this.earlier] = [caches, remembered];
    try {
      return pass();
    } finally {
      if (remembered) for (const text of this.fresh) if (text.length <= REMEMBERED_TEXT) remembered.set(text, caches.parsed.get(text));
      this.fresh = [];
      this.caches = this.earlier = this.context = undefined;
    }
  }

  /** The text parsed, when it is JSON a cassette keeps as structure; undefined otherwise. */
  readonly jsonOf = (text: string): unknown => {
    const parsed = this.caches?.parsed;
    let json = parsed?.get(text);
    if (json !== undefined || parsed?.has(text)) return json;
    json = this.earlier?.get(text);
    if (json === undefined && !this.earlier?.has(text)) {
      if (this.earlier) this.fresh.push(text);
      if (looksLikeJson(text))
        try {
          json = JSON.parse(text);
        } catch {
          // Not JSON after all.
        }
    }
    parsed?.set(text, json);
    return json;
  };

  itemsBefore(events: SseItem[]): SseItem[] {
    return this.context?.of === events ? (this.context.before as SseItem[]) : NO_ITEMS;
  }

  framesBefore(frames: WsFrame[]): SseItem[] {
    return this.context?.of === frames ? this.framesAsItems(this.context.before as WsFrame[]) : NO_ITEMS;
  }

  /**
   * A session's text and JSON frames as SSE items, so a secret spelt out across frames (a JSON-RPC server's
   * deltas) is found as across items: one stream per direction and method. Once per list of frames within a pass.
   */
  framesAsItems(frames: WsFrame[]): SseItem[] {
    const items = this.caches?.framed.get(frames) ?? asItems(frames);
    this.caches?.framed.set(frames, items);
    return items;
  }

  /**
   * The streams of `before` and the items, each with what the rules find in its text; once per list of items
   * within a pass, which runs to its end before a live recording adds an item (never across passes).
   */
  searched(events: SseItem[], before: SseItem[]): Searched[] {
    let streams = this.caches?.streams.get(events);
    if (!streams) {
      const all = before.length > 0 ? [...before, ...events] : events;
      streams = streamTexts(all, this.jsonOf).map((stream) => ({ stream, findings: this.finder.find(stream.text) }));
      this.caches?.streams.set(events, streams);
    }
    return streams;
  }
}

/** Frames as SSE items, one stream per direction and JSON-RPC method. */
function asItems(frames: WsFrame[]): SseItem[] {
  return frames.map((f) => ({ at: f.at, after: f.after, event: `${f.from} ${methodOf(f.json)}`, data: spelt(f) }));
}

/** The JSON-RPC method a frame carries, or nothing. */
function methodOf(json: unknown): string {
  const method = json && typeof json === 'object' && !Array.isArray(json) ? (json as { method?: unknown }).method : undefined;
  return typeof method === 'string' ? method : '';
}

/** A frame's payload as text the split search reads: JSON objects and arrays as JSON, text as it is; nothing else. */
function spelt(f: WsFrame): string | undefined {
  if (f.text !== undefined) return f.text;
  return f.json !== null && typeof f.json === 'object' ? JSON.stringify(f.json) : undefined;
}
