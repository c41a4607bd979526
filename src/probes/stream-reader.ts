import { eventType } from '../contracts/stream-events.js';
import { SseParser } from '../sse/index.js';
import { type FetchLike, INTERNAL_ORIGIN } from './session-client.js';

export interface StreamEvent {
  type: string;
  data: Record<string, unknown>;
}

interface Waiter {
  from: number;
  match: (e: StreamEvent) => boolean;
  resolve: (e: StreamEvent | undefined) => void;
  timer: NodeJS.Timeout;
}

/**
 * A subscription to a session stream: collects events as they arrive and lets
 * the driver wait for the one it needs next, with a timeout.
 */
export class StreamReader {
  readonly events: StreamEvent[] = [];
  private waiters: Waiter[] = [];
  private ended = false;
  private markEnded: () => void = () => {};
  private readonly endedPromise = new Promise<void>((resolve) => {
    this.markEnded = resolve;
  });
  private lastEventAt = Date.now();
  error: string | undefined;

  /** Whether the stream carried the bare `data: [DONE]` sentinel. */
  sawDone = false;

  private constructor(private readonly controller: AbortController) {}

  /** Opens the stream and resolves once the server's subscription-ready heartbeat arrived. */
  static async open(baseUrl: string, sessionId: string, fetch: FetchLike, timeoutMs: number): Promise<StreamReader> {
    const controller = new AbortController();
    const res = await fetch(`${baseUrl}/v1/sessions/${sessionId}/stream`, {
      signal: controller.signal,
      headers: { origin: INTERNAL_ORIGIN, accept: 'text/event-stream' },
    });
    const reader = await StreamReader.follow(res, controller);
    await reader.waitFor(() => true, timeoutMs);
    return reader;
  }

  /** Reads an SSE response already open on any route; `controller` is the one its request was made with, so close() aborts it. */
  static async follow(res: Response, controller = new AbortController()): Promise<StreamReader> {
    if (res.status !== 200 || !res.body) {
      const body = await res.text();
      throw new Error(`stream answered ${res.status}: ${body.slice(0, 200)}`);
    }
    const reader = new StreamReader(controller);
    void reader.pump(res.body);
    return reader;
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const parser = new SseParser();
    const source = body.getReader();
    try {
      for (;;) {
        const { value: chunk, done } = await source.read();
        if (done) break;
        for (const frame of parser.push(chunk)) {
          if (frame.kind !== 'event' || frame.data === undefined) continue;
          if (frame.data === '[DONE]') {
            this.sawDone = true;
            continue;
          }
          let data: Record<string, unknown> = {};
          try {
            data = JSON.parse(frame.data) as Record<string, unknown>;
          } catch {
            // A frame that is not JSON still counts, with empty data.
          }
          this.push({ type: eventType(frame, data), data });
        }
      }
    } catch (err) {
      if (!this.controller.signal.aborted) this.error = (err as Error).message;
    } finally {
      this.ended = true;
      this.markEnded();
      for (const w of this.waiters) {
        clearTimeout(w.timer);
        w.resolve(undefined);
      }
      this.waiters = [];
    }
  }

  private push(event: StreamEvent): void {
    this.events.push(event);
    this.lastEventAt = Date.now();
    const index = this.events.length - 1;
    for (const w of [...this.waiters]) {
      if (index >= w.from && w.match(event)) {
        clearTimeout(w.timer);
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(event);
      }
    }
  }

  /** The first event at or after index `from` that matches, or undefined on timeout or stream end. */
  waitFor(match: (e: StreamEvent) => boolean, timeoutMs: number, from = 0): Promise<StreamEvent | undefined> {
    const found = this.events.slice(from).find(match);
    if (found || this.ended) return Promise.resolve(found);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        from,
        match,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(undefined);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** Resolves once no event has arrived for `quietMs` (or the stream ended). */
  async settle(quietMs: number): Promise<void> {
    while (!this.ended) {
      const idle = Date.now() - this.lastEventAt;
      if (idle >= quietMs) return;
      await new Promise((r) => setTimeout(r, quietMs - idle));
    }
  }

  /** Resolves when the server ends the stream, or after `timeoutMs`. */
  async untilEnd(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.endedPromise, new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
  }

  count(type: string): number {
    return this.events.filter((e) => e.type === type).length;
  }

  close(): void {
    this.controller.abort();
  }
}
