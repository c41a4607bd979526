import type { Mark } from './plan.js';

/** How far each re-sent exchange has come (events read, ended), and waits on it that a bound cuts short. */
export class Progress {
  /** Per exchange, how many events of each type have come. */
  private readonly events = new Map<number, Map<string, number>>();
  private readonly ended = new Set<number>();
  private listeners: (() => void)[] = [];

  /** `seq` of a request folded into a poll answers for the poll's first: waiting on a repeat is waiting on the poll. */
  constructor(private readonly alias: ReadonlyMap<number, number>) {}

  private key = (seq: number) => this.alias.get(seq) ?? seq;

  event(seq: number, type: string): void {
    let counts = this.events.get(seq);
    if (!counts) this.events.set(seq, (counts = new Map()));
    counts.set(type, (counts.get(type) ?? 0) + 1);
    this.wake();
  }

  end(seq: number): void {
    this.ended.add(seq);
    this.wake();
  }

  private wake(): void {
    const waiting = this.listeners;
    this.listeners = [];
    for (const l of waiting) l();
  }

  private holds(seq: number, mark: Mark | undefined): boolean {
    const k = this.key(seq);
    return this.ended.has(k) || (mark !== undefined && (this.events.get(k)?.get(mark.type) ?? 0) >= mark.count);
  }

  /** Resolves true once `seq` has ended (or its stream come as far as `mark`), false when `limit` aborts first. */
  async wait(seq: number, mark: Mark | undefined, limit: AbortSignal): Promise<boolean> {
    while (!this.holds(seq, mark)) {
      if (limit.aborted) return false;
      await new Promise<void>((resolve) => {
        const done = () => {
          limit.removeEventListener('abort', done);
          resolve();
        };
        this.listeners.push(done);
        limit.addEventListener('abort', done, { once: true });
      });
    }
    return true;
  }
}
