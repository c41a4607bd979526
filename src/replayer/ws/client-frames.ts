import type { WsFrame, WsSession } from '../../cassette/index.js';

/** A session's client frames, and when each was matched in replay: what its server frames wait for. */
export class ClientFrames {
  /** This session's client frames by recorded seq. */
  private readonly own: Map<number, WsFrame>;
  /** When (performance.now) each was matched, by recorded seq. */
  private readonly matchedAt = new Map<number, number>();
  private waiters: { seq: number; resolve: () => void }[] = [];

  constructor(session: WsSession) {
    this.own = new Map(session.frames.flatMap((f) => (f.from === 'client' ? [[f.seq as number, f] as const] : [])));
  }

  has(seq: number): boolean {
    return this.own.has(seq);
  }

  get(seq: number): WsFrame | undefined {
    return this.own.get(seq);
  }

  /** When the frame `seq` was matched, if it was. */
  when(seq: number): number | undefined {
    return this.matchedAt.get(seq);
  }

  /**
   * The client frame of this session a server frame answers: the latest one
   * recorded at or before its `after`. The recorder stamps `after` with the
   * latest seq of the whole cassette, which with several connections open may
   * be another connection's frame; this connection must not wait for that one.
   */
  causeOf(frame: WsFrame): number | undefined {
    let cause: number | undefined;
    for (const seq of this.own.keys()) if (seq <= frame.after && (cause === undefined || seq > cause)) cause = seq;
    return cause;
  }

  /** Marks the frame `seq` matched now, and wakes what waited for it. */
  mark(seq: number): void {
    this.matchedAt.set(seq, performance.now());
    const ready = this.waiters.filter((w) => w.seq === seq);
    this.waiters = this.waiters.filter((w) => w.seq !== seq);
    for (const w of ready) w.resolve();
  }

  /** Waits until the frame `seq` has been matched. */
  matched(seq: number, signal: AbortSignal): Promise<void> {
    if (this.matchedAt.has(seq)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(signal.reason);
      };
      const waiter = {
        seq,
        resolve: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.waiters.push(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
