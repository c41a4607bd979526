import { performance } from 'node:perf_hooks';
import type { Cassette, Interaction } from '../cassette/index.js';
import { isMutating } from './match-request.js';

/**
 * How far along its cassette's timeline the client has come: the highest
 * recorded seq it has reached with a state-changing request or a due read.
 * An event recorded with `after = k` waits until progress reaches k.
 */
export class CassetteClock {
  private readonly mutating: number[];
  private readonly bySeq: Map<number, Interaction>;
  private progress = 0;
  /** When progress passed each value, in increasing order. */
  private readonly steps: { seq: number; time: number }[] = [];
  private waiters: { seq: number; resolve: () => void }[] = [];

  constructor(readonly cassette: Cassette) {
    this.mutating = cassette.interactions.filter((i) => isMutating(i.request.method)).map((i) => i.seq);
    this.bySeq = new Map(cassette.interactions.map((i) => [i.seq, i]));
  }

  interaction(seq: number): Interaction | undefined {
    return this.bySeq.get(seq);
  }

  /** The latest state-changing request at or before `seq` (0 when none). */
  anchorAtOrBefore(seq: number): number {
    let anchor = 0;
    for (const m of this.mutating) {
      if (m > seq) break;
      anchor = m;
    }
    return anchor;
  }

  reached(seq: number): boolean {
    return seq <= this.progress;
  }

  /** When (performance.now) progress first reached `seq`; undefined if it has not. */
  reachedAt(seq: number): number | undefined {
    return this.steps.find((s) => s.seq >= seq)?.time;
  }

  advance(seq: number): void {
    if (seq <= this.progress) return;
    this.progress = seq;
    this.steps.push({ seq, time: performance.now() });
    const ready = this.waiters.filter((w) => w.seq <= seq);
    this.waiters = this.waiters.filter((w) => w.seq > seq);
    for (const w of ready) w.resolve();
  }

  /** Resolves once progress reaches `seq`. */
  waitReached(seq: number, signal?: AbortSignal): Promise<void> {
    if (this.reached(seq)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = { seq, resolve };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(signal.reason);
      });
    });
  }
}
