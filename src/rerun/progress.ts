/** How far each re-sent exchange has come (events read, ended), and waits on it that a bound cuts short. */
export class Progress {
  private readonly events = new Map<number, number>();
  private readonly ended = new Set<number>();
  private listeners: (() => void)[] = [];

  /** `seq` of a request folded into a poll answers for the poll's first: waiting on a repeat is waiting on the poll. */
  constructor(private readonly alias: ReadonlyMap<number, number>) {}

  private key = (seq: number) => this.alias.get(seq) ?? seq;

  event(seq: number, count: number): void {
    this.events.set(seq, count);
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

  private holds(seq: number, events: number | undefined): boolean {
    const k = this.key(seq);
    return this.ended.has(k) || (events !== undefined && (this.events.get(k) ?? 0) >= events);
  }

  /** Resolves true once `seq` has ended (or read `events` events), false when `limit` aborts first. */
  async wait(seq: number, events: number | undefined, limit: AbortSignal): Promise<boolean> {
    while (!this.holds(seq, events)) {
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
