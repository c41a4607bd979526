import type { ServerResponse } from 'node:http';
import type { StreamMutator } from './mutations.js';

/** Payload fields every session stream event carries, in the order the server writes them. */
export type StreamPayload = Record<string, unknown>;

/**
 * The live-only SSE stream of one session: events published with nobody
 * subscribed are lost, as on the real server (no history replay).
 */
export class SessionStream {
  private readonly subscribers = new Set<ServerResponse>();

  constructor(readonly mutator?: StreamMutator) {}

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /** Adds a subscriber; `preamble` frames go to it alone, heartbeat first. */
  subscribe(res: ServerResponse, preamble: [string, StreamPayload][]): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    this.subscribers.add(res);
    res.on('close', () => this.subscribers.delete(res));
    for (const [type, payload] of preamble) res.write(frame(type, payload));
  }

  /** Publishes one event to every current subscriber. */
  publish(type: string, payload: StreamPayload): void {
    for (const [t, p] of this.mutator ? this.mutator.apply(type, payload) : [[type, payload] as const]) {
      const text = frame(t, p);
      for (const res of this.subscribers) res.write(text);
    }
  }

  /** Ends every subscription normally, with the bare `[DONE]` sentinel. */
  close(): void {
    for (const res of this.subscribers) {
      const sentinel = this.mutator?.dropsSentinel ? undefined : 'data: [DONE]\n\n';
      // A server that forgets to end the response after its sentinel: the client must hang up.
      if (this.mutator?.keepsStreamsOpen) res.write(sentinel ?? '');
      else res.end(sentinel);
    }
    this.subscribers.clear();
  }
}

/** `sequence_number` first, then `type`, then the event's own fields; absent ones as null. */
function frame(type: string, payload: StreamPayload): string {
  const { sequence_number = null, ...rest } = payload;
  return `event: ${type}\ndata: ${JSON.stringify({ sequence_number, type, ...rest })}\n\n`;
}
