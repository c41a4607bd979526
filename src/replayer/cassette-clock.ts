import { performance } from 'node:perf_hooks';
import type { Cassette } from '../cassette/index.js';
import { isMutating } from './match-request.js';

/**
 * The causal progress of one cassette during replay: which state-changing
 * requests the client has made again. Recorded answers and SSE events wait
 * for the state-changing requests that preceded them in the recording.
 */
export class CassetteClock {
  private readonly mutating: number[];
  private readonly replayed = new Set<number>();
  private readonly replayedAt = new Map<number, number>();
  private cursor = 0;
  private waiters: { anchor: number; resolve: () => void }[] = [];

  constructor(readonly cassette: Cassette) {
    this.mutating = cassette.interactions.filter((i) => isMutating(i.request.method)).map((i) => i.seq);
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

  /** The largest m such that every state-changing request up to m has been made again. */
  get doneUpTo(): number {
    return this.cursor === 0 ? 0 : (this.mutating[this.cursor - 1] as number);
  }

  isDone(anchor: number): boolean {
    return anchor === 0 || this.doneUpTo >= anchor;
  }

  /** When (performance.now) the client made the state-changing request `seq` again. */
  replayTime(seq: number): number | undefined {
    return this.replayedAt.get(seq);
  }

  markReplayed(seq: number): void {
    if (this.replayed.has(seq)) return;
    this.replayed.add(seq);
    this.replayedAt.set(seq, performance.now());
    while (this.cursor < this.mutating.length && this.replayed.has(this.mutating[this.cursor] as number)) this.cursor++;
    const ready = this.waiters.filter((w) => this.isDone(w.anchor));
    this.waiters = this.waiters.filter((w) => !this.isDone(w.anchor));
    for (const w of ready) w.resolve();
  }

  /** Resolves once the client has made every state-changing request up to `anchor`. */
  waitDone(anchor: number, signal?: AbortSignal): Promise<void> {
    if (this.isDone(anchor)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = { anchor, resolve };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(signal.reason);
      });
    });
  }
}
