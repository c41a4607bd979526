/**
 * Values the server hands out (ids in JSON bodies, `Location`, session headers, SSE ids), learned by laying the new
 * server's answer over the recorded one, and put in place of the recorded values in every later request.
 */

/** Shorter strings (`ok`, a state, a count) say too little to be taken for an id. */
const MIN_ISSUED_LENGTH = 6;

/** What a request or an answer carries that may hold an issued value, as the rerun reads it. */
export interface Exchanged {
  headers: Record<string, string>;
  /** The JSON body, or the text of one that is not JSON. */
  body?: unknown;
  /** SSE events: their type, their data (parsed when JSON) and their `id:`. */
  events?: StreamEvent[];
}

/** One SSE event, typed as the contracts type it (its name, else its data's own type). */
export interface StreamEvent {
  type: string;
  data: unknown;
  id?: string | undefined;
}

/** Recorded value → the new server's, for the values later requests carry. */
export class IssuedValues {
  private readonly map = new Map<string, string>();
  private isEchoed: (value: string) => boolean = () => false;
  private ordered: [string, string][] | undefined;

  get size(): number {
    return this.map.size;
  }

  /**
   * Learns from one answer: the recorded answer laid over the new one, field by field, event by event. Only values
   * `isEchoed` (a later recorded request carries them, no earlier one did) are worth a place.
   */
  learn(recorded: Exchanged, live: Exchanged, isEchoed: (value: string) => boolean): void {
    this.isEchoed = isEchoed;
    for (const [name, value] of Object.entries(recorded.headers)) this.pair(value, live.headers[name]);
    this.walk(recorded.body, live.body);
    const lay = this.eventLayer(recorded.events ?? [], isEchoed);
    for (const e of live.events ?? []) lay(e);
  }

  /**
   * Learns a stream's events as they come, each laid over the recorded event of its type and occurrence (the
   * second `permission.asked` over the second recorded one): a request that waits on an event finds its ids learned.
   */
  eventLayer(recorded: NonNullable<Exchanged['events']>, isEchoed: (value: string) => boolean): (live: StreamEvent) => void {
    const byType = new Map<string, StreamEvent[]>();
    for (const e of recorded) byType.set(e.type, [...(byType.get(e.type) ?? []), e]);
    const seen = new Map<string, number>();
    return (live) => {
      const n = seen.get(live.type) ?? 0;
      seen.set(live.type, n + 1);
      const other = byType.get(live.type)?.[n];
      if (!other) return;
      this.isEchoed = isEchoed;
      this.pair(other.id, live.id);
      this.walk(other.data, live.data);
    };
  }

  private walk(recorded: unknown, live: unknown): void {
    if (typeof recorded === 'string') this.pair(recorded, live);
    else if (Array.isArray(recorded) && Array.isArray(live)) for (const [n, r] of recorded.entries()) this.walk(r, live[n]);
    else if (recorded && live && typeof recorded === 'object' && typeof live === 'object')
      for (const [k, r] of Object.entries(recorded)) this.walk(r, (live as Record<string, unknown>)[k]);
  }

  private pair(recorded: string | undefined, live: unknown): void {
    if (recorded === undefined || typeof live !== 'string' || recorded === live || recorded.length < MIN_ISSUED_LENGTH) return;
    if (this.map.has(recorded) || !this.isEchoed(recorded)) return;
    this.map.set(recorded, live);
    this.ordered = undefined;
  }

  /** A text with every learned recorded value replaced by the new server's (longest first, so no value eats another). */
  apply(text: string): string {
    if (this.map.size === 0) return text;
    this.ordered ??= [...this.map].sort((a, b) => b[0].length - a[0].length);
    let out = text;
    for (const [from, to] of this.ordered) if (out.includes(from)) out = out.replaceAll(from, to);
    return out;
  }

  /** A JSON value with the replacement made in every string. */
  applyJson(value: unknown): unknown {
    if (typeof value === 'string') return this.apply(value);
    if (Array.isArray(value)) return value.map((v) => this.applyJson(v));
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.apply(k), this.applyJson(v)]));
    return value;
  }
}
