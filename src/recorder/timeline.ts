import { performance } from 'node:perf_hooks';
import type { Interaction } from '../cassette/index.js';

/**
 * The global clock and request counter of one recording. Every request gets
 * the next sequence number on arrival; every SSE event is stamped with the
 * last sequence number issued, which is what causal replay waits for.
 */
export class Timeline {
  private readonly origin = performance.now();
  private seq = 0;
  readonly interactions: Interaction[] = [];

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
    return interaction;
  }
}
