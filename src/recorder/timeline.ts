import { performance } from 'node:perf_hooks';
import type { Body, ContentEncoding, Failure, Headers, Interaction, SseItem, StreamEnd, WsFrame } from '../cassette/index.js';
import type { JournalEntry } from './journal/index.js';

/** How an exchange ended, as `Timeline.finish` records it. */
export interface Outcome {
  failure?: Failure;
  end?: StreamEnd;
  error?: string;
  /** The body's bytes, or the mark of one too big to keep. */
  bytes?: Buffer | Body;
  encoding?: ContentEncoding;
  /** Trailer fields the server sent after the body or stream. */
  trailers?: Headers;
  /**
   * When the server ended it, taken before the end goes on to the client: a request the client sends once it has
   * seen the end arrives after this, so replay can hold a stream's end until the requests before it (decision 0008).
   */
  at?: number;
}

/**
 * The global clock, request counter and captured state of one recording.
 * Every request gets the next sequence number on arrival; every SSE event is
 * stamped with the last sequence number issued, which is what causal replay
 * waits for. Each change is also told to the journal, if there is one.
 */
export class Timeline {
  private readonly origin = performance.now();
  private seq = 0;
  readonly interactions: Interaction[] = [];
  private readonly finished = new WeakSet<Interaction>();

  constructor(
    private readonly journal?: (entry: JournalEntry) => void,
    /** Told when an exchange is over, and when one that was over changes after all (a frame behind a close). */
    private readonly watch?: { settled(i: Interaction): void; changed(i: Interaction): void },
  ) {}

  /** Milliseconds since the recording started, to a hundredth. */
  now(): number {
    return Math.round((performance.now() - this.origin) * 100) / 100;
  }

  /** The sequence number of the latest request that has arrived. */
  get lastSeq(): number {
    return this.seq;
  }

  /** A client WebSocket frame is a request too: it takes the next sequence number, without an interaction of its own. */
  tick(): number {
    this.seq += 1;
    return this.seq;
  }

  /** Registers a newly arrived request; interactions stay in arrival order. */
  open(request: Interaction['request']): Interaction {
    this.seq += 1;
    const interaction: Interaction = { seq: this.seq, request, timing: { start: this.now() } };
    this.interactions.push(interaction);
    this.journal?.({ k: 'open', seq: interaction.seq, request, start: interaction.timing.start });
    return interaction;
  }

  /** The request body, read whole. */
  /** The request body as recorded: the content, with the coding it came in when it came compressed. */
  requestBody(i: Interaction, bytes: Buffer, encoding?: ContentEncoding): void {
    if (bytes.byteLength > 0) this.journal?.({ k: 'request-body', seq: i.seq, bytes, ...(encoding ? { encoding } : {}) });
  }

  /** The response head: status and headers, and whether a stream or session follows. */
  respond(i: Interaction, response: NonNullable<Interaction['response']>): void {
    i.timing.headers = this.now();
    i.response = response;
    const kind = response.stream ? 'stream' : response.websocket ? 'websocket' : 'body';
    this.journal?.({
      k: 'response',
      seq: i.seq,
      at: i.timing.headers,
      status: response.status,
      headers: response.headers,
      kind,
      ...(response.encoding ? { encoding: response.encoding } : {}),
    });
  }

  /** One SSE item of the interaction's stream. */
  event(i: Interaction, item: SseItem): void {
    i.response?.stream?.events.push(item);
    this.journal?.({ k: 'event', seq: i.seq, item });
    if (this.finished.has(i)) this.watch?.changed(i);
  }

  /** One WebSocket frame of the interaction's session. */
  frame(i: Interaction, frame: WsFrame): void {
    i.response?.websocket?.frames.push(frame);
    this.journal?.({ k: 'frame', seq: i.seq, frame });
    if (this.finished.has(i)) this.watch?.changed(i);
  }

  /**
   * The exchange is over: its end time, how a stream or session ended, a
   * failure, the response body's bytes (decoded, when `encoding` says so).
   */
  finish(i: Interaction, outcome: Outcome = {}): void {
    i.timing.end = outcome.at ?? this.now();
    if (outcome.failure) i.failure = outcome.failure;
    if (outcome.encoding && i.response) i.response.encoding = outcome.encoding;
    if (outcome.trailers && i.response) i.response.trailers = outcome.trailers;
    const live = i.response?.stream ?? i.response?.websocket;
    if (live && outcome.end) live.end = outcome.end;
    if (live && outcome.error) live.error = outcome.error;
    this.journal?.({
      k: 'end',
      seq: i.seq,
      timing: { ...i.timing },
      failure: i.failure,
      end: live?.end,
      error: live?.error,
      bytes: outcome.bytes,
      encoding: outcome.encoding,
      trailers: outcome.trailers,
    });
    if (this.finished.has(i)) this.watch?.changed(i);
    else {
      this.finished.add(i);
      this.watch?.settled(i);
    }
  }
}
