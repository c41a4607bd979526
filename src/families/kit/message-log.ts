interface Waiter<T> {
  from: number;
  match: (item: T) => boolean;
  resolve: (item: T | undefined) => void;
  timer: NodeJS.Timeout;
}

/**
 * Messages in arrival order, and waits for the next one a driver needs: the
 * first match at or after an index, or undefined on timeout or once the source
 * has ended. Stream readers and RPC clients share it.
 */
export class MessageLog<T> {
  readonly items: T[] = [];
  private waiters: Waiter<T>[] = [];
  private done = false;
  private markEnded: () => void = () => {};
  /** Resolves when the source ends. */
  readonly ended = new Promise<void>((resolve) => {
    this.markEnded = resolve;
  });

  get isEnded(): boolean {
    return this.done;
  }

  push(item: T): void {
    this.items.push(item);
    const index = this.items.length - 1;
    for (const w of [...this.waiters]) {
      if (index < w.from || !w.match(item)) continue;
      clearTimeout(w.timer);
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.resolve(item);
    }
  }

  /** No more items will come: every wait still open resolves undefined. */
  end(): void {
    if (this.done) return;
    this.done = true;
    this.markEnded();
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.resolve(undefined);
    }
  }

  /** The first item at or after index `from` that matches, or undefined on timeout or end. */
  waitFor(match: (item: T) => boolean, timeoutMs: number, from = 0): Promise<T | undefined> {
    const found = this.items.slice(from).find(match);
    if (found || this.done) return Promise.resolve(found);
    return new Promise((resolve) => {
      const waiter: Waiter<T> = {
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
}
