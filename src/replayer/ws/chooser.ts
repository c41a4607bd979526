import type { WsSession } from '../../cassette/index.js';
import { UnmatchedRequestError } from '../errors.js';
import type { IssuedNames } from '../issued-values.js';
import type { WsReplaySession } from './session.js';
import type { ClientFrame, WsDelivered, WsOutgoing, WsSessionLike } from './types.js';

/** What ties a connection to a session: its pool (pool.ts), which hands it one and may move it. */
export interface SessionBinder {
  /** Gives an unheld connection the free session its first frame fits; false when none is free. */
  bindFirst(chooser: WsSessionChooser, frame: ClientFrame): boolean;
  /** Moves the connection to a session that fits every frame it has sent, when its own does not. */
  rebind(chooser: WsSessionChooser, frames: readonly ClientFrame[]): void;
}

/**
 * One connection to a path with recorded sessions, tied to one of them by its
 * pool. When the pool moves it to another session, the server frames already
 * sent are not sent again, and the rest come from the new session.
 */
export class WsSessionChooser implements WsSessionLike {
  index: number | undefined;
  replay: WsReplaySession | undefined;
  /** The client frames this connection has sent, in order. */
  readonly history: ClientFrame[] = [];
  /** What this connection has been sent. */
  readonly delivered: WsDelivered = { texts: [], answered: new Set(), others: 0 };
  closed = false;
  /** Aborted when the connection moves to another session: the old session's frames stop. */
  private turn = new AbortController();
  private wake: (() => void) | undefined;
  private readonly ready = new Promise<void>((resolve) => {
    this.wake = resolve;
  });

  constructor(private readonly pool: SessionBinder) {}

  get end(): WsSession['end'] {
    return this.replay ? this.replay.end : 'server-closed';
  }

  /** Ties this connection to a session, replaying into it the client frames already sent. */
  take(index: number, replay: WsReplaySession, names: IssuedNames): void {
    const moved = this.replay !== undefined;
    this.index = index;
    this.replay = replay;
    replay.opened();
    replay.attach(this.delivered, names);
    for (const frame of this.history) replay.receive(frame.data, frame.binary);
    if (moved) {
      this.turn.abort();
      this.turn = new AbortController();
    }
    this.wake?.();
  }

  receive(data: Buffer, binary: boolean): UnmatchedRequestError | undefined {
    const frame = { data, binary };
    if (!this.replay && !this.pool.bindFirst(this, frame))
      return new UnmatchedRequestError('WS', 'a connection whose recorded sessions were all taken by other connections', []);
    // Matched once on the way through; only a frame its session does not expect is tried against the others.
    let miss = (this.replay as WsReplaySession).receive(data, binary);
    if (miss) {
      this.pool.rebind(this, [...this.history, frame]);
      miss = (this.replay as WsReplaySession).receive(data, binary);
    }
    this.history.push(frame);
    return miss;
  }

  async *outgoing(signal: AbortSignal): AsyncGenerator<WsOutgoing> {
    const stop = () => {
      this.closed = true;
      this.turn.abort();
      this.wake?.();
    };
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    try {
      await this.ready;
      while (this.replay && !this.closed) {
        const { turn, replay } = this;
        try {
          for await (const out of replay.outgoing(turn.signal)) {
            yield out;
            if (turn !== this.turn) break;
          }
        } catch (error) {
          if (turn === this.turn) throw error;
        }
        if (turn === this.turn) return;
      }
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }
}
