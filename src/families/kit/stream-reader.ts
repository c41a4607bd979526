import { eventType } from '../../contracts/stream-events.js';
import { SseParser } from '../../sse/index.js';
import { ServerResponseError } from './errors.js';
import { MessageLog } from './message-log.js';

export interface StreamEvent {
  type: string;
  data: Record<string, unknown>;
}

/**
 * A subscription to a session stream: collects events as they arrive and lets
 * the driver wait for the one it needs next, with a timeout.
 */
export class StreamReader {
  private readonly log = new MessageLog<StreamEvent>();
  private lastEventAt = Date.now();
  error: string | undefined;

  /** Whether the stream carried the bare `data: [DONE]` sentinel. */
  sawDone = false;
  private doneSeen!: () => void;
  private readonly done = new Promise<void>((resolve) => {
    this.doneSeen = resolve;
  });

  private constructor(private readonly controller: AbortController) {}

  /** Whether the stream has ended (closed by either side). */
  get ended(): boolean {
    return this.log.isEnded;
  }

  /** Every event so far, in arrival order. */
  get events(): StreamEvent[] {
    return this.log.items;
  }

  /** Reads an SSE response already open on any route; `controller` is the one its request was made with, so close() aborts it. */
  static async follow(res: Response, controller = new AbortController()): Promise<StreamReader> {
    if (res.status !== 200 || !res.body) {
      const body = await res.text();
      throw new ServerResponseError(res.status, 'stream', body);
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
            this.doneSeen();
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
      this.log.end();
    }
  }

  private push(event: StreamEvent): void {
    this.lastEventAt = Date.now();
    this.log.push(event);
  }

  /** The first event at or after index `from` that matches, or undefined on timeout or stream end. */
  waitFor(match: (e: StreamEvent) => boolean, timeoutMs: number, from = 0): Promise<StreamEvent | undefined> {
    return this.log.waitFor(match, timeoutMs, from);
  }

  /** Resolves once no event has arrived for `quietMs` (or the stream ended). */
  async settle(quietMs: number): Promise<void> {
    while (!this.log.isEnded) {
      const idle = Date.now() - this.lastEventAt;
      if (idle >= quietMs) return;
      await new Promise((r) => setTimeout(r, quietMs - idle));
    }
  }

  /**
   * Resolves when the server ends the stream, or after `timeoutMs`; with
   * `afterDoneMs`, also that long after the `[DONE]` sentinel, since a server
   * that forgets to end the response after it would otherwise hold the client
   * for the whole timeout.
   */
  async untilEnd(timeoutMs: number, afterDoneMs?: number): Promise<void> {
    const timers: NodeJS.Timeout[] = [];
    const after = (ms: number) => new Promise<void>((r) => timers.push(setTimeout(r, ms)));
    await Promise.race([
      this.log.ended,
      after(timeoutMs),
      ...(afterDoneMs !== undefined ? [this.done.then(() => after(afterDoneMs))] : []),
    ]);
    for (const t of timers) clearTimeout(t);
  }

  count(type: string): number {
    return this.events.filter((e) => e.type === type).length;
  }

  close(): void {
    this.controller.abort();
  }
}
