import { performance } from 'node:perf_hooks';
import type { Cassette, Interaction } from '../cassette/index.js';
import { lastAtOrBelow } from '../fs/sorted-search.js';
import { isMutating } from './match-request.js';
import { pathKeys } from './stream-causes.js';

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
  private waiters: { seq: number; keys: readonly string[]; resolve: () => void }[] = [];
  /** Per resource key (decision 0008), the highest seq reached by a request naming it. */
  private readonly keyProgress = new Map<string, number>();

  constructor(readonly cassette: Cassette) {
    this.mutating = cassette.interactions
      .filter((i) => isMutating(i.request.method))
      .map((i) => i.seq)
      .sort((a, b) => a - b);
    this.bySeq = new Map(cassette.interactions.map((i) => [i.seq, i]));
  }

  interaction(seq: number): Interaction | undefined {
    return this.bySeq.get(seq);
  }

  /** The latest state-changing request at or before `seq` (0 when none). */
  anchorAtOrBefore(seq: number): number {
    // Binary search: an engine asks once per interaction, and a linear scan made opening a big cassette quadratic.
    const at = lastAtOrBelow(this.mutating, seq);
    return at === -1 ? 0 : (this.mutating[at] as number);
  }

  /** Whether the client has come as far as `seq`; with `keys`, by requests naming one of those resources. */
  reached(seq: number, keys: readonly string[] = []): boolean {
    if (keys.length === 0) return seq <= this.progress;
    return keys.some((k) => seq <= (this.keyProgress.get(k) ?? 0));
  }

  /** When (performance.now) progress first reached `seq`; undefined if it has not. */
  reachedAt(seq: number): number | undefined {
    return this.steps.find((s) => s.seq >= seq)?.time;
  }

  advance(seq: number): void {
    let moved = false;
    for (const k of pathKeys(this.bySeq.get(seq)?.request.path ?? '')) {
      if (seq > (this.keyProgress.get(k) ?? 0)) {
        this.keyProgress.set(k, seq);
        moved = true;
      }
    }
    if (seq > this.progress) {
      this.progress = seq;
      this.steps.push({ seq, time: performance.now() });
      moved = true;
    }
    if (!moved) return;
    const ready = this.waiters.filter((w) => this.reached(w.seq, w.keys));
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  }

  /** Resolves once the client has come as far as `seq` (with `keys`, by requests naming one of them). */
  waitReached(seq: number, signal?: AbortSignal, keys: readonly string[] = []): Promise<void> {
    if (this.reached(seq, keys)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      // The abort listener goes once the wait is over: a stream waits many times on one signal.
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(signal?.reason);
      };
      const waiter = {
        seq,
        keys,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
