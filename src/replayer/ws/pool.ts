import type { WsSession } from '../../cassette/index.js';
import { IssuedNames } from '../issued-values.js';
import { WsSessionChooser } from './chooser.js';
import type { WsReplaySession } from './session.js';
import type { ClientFrame } from './types.js';

/** A recorded session connections on its path may be given. */
export interface WsRecorded {
  readonly session: WsSession;
  /** A fresh replay of it, for one connection. */
  replay(): WsReplaySession;
  /** Told when a connection takes it (true) or gives it back for another (false). */
  held(taken: boolean): void;
}

/**
 * The recorded sessions of one path and which connection holds each. A
 * connection takes the session its first frame was recorded in; clients that
 * open alike (the same `initialize`) cannot be told apart by it, so the choice
 * stays open: when a later frame fits another session that agrees with
 * everything this connection has sent and been sent, the connection moves to
 * it, trading places with a connection holding it if that one fits the other
 * way too. Two clients at once, or start then resume in either order, each end
 * in the session their own frames were recorded in.
 */
export class WsSessionPool {
  private readonly probes: WsReplaySession[];
  private readonly holders = new Map<number, WsSessionChooser>();
  /** The names clients know recorded ids by, for every connection to this path. */
  private readonly names = new IssuedNames();

  constructor(private readonly recorded: readonly WsRecorded[]) {
    this.probes = recorded.map((r) => r.replay());
  }

  /** Whether some recorded session is held by no connection. */
  get hasFree(): boolean {
    return this.holders.size < this.recorded.length;
  }

  /** A new connection; a session whose server spoke first is taken at once, in recorded order. */
  connect(): WsSessionChooser {
    const chooser = new WsSessionChooser(this);
    const first = this.free()[0];
    if (first !== undefined && serverSpeaksFirst((this.recorded[first] as WsRecorded).session)) this.give(chooser, first);
    return chooser;
  }

  private free(): number[] {
    return this.recorded.flatMap((_, i) => (this.holders.has(i) ? [] : [i]));
  }

  /** Gives an unheld connection the free session its first frame fits, else the first free one (which then reports the miss). */
  bindFirst(chooser: WsSessionChooser, frame: ClientFrame): boolean {
    const free = this.free();
    const index = free.find((i) => (this.probes[i] as WsReplaySession).acceptsAll([frame], [], this.names) !== undefined) ?? free[0];
    if (index === undefined) return false;
    this.give(chooser, index);
    return true;
  }

  /**
   * Moves a connection whose next frame its session does not expect to one
   * that fits all it has sent, if there is one. Ids it was handed by the old
   * session keep the names it knows them by: the path's names swap (see
   * issued-values.ts), so no two clients are handed one id.
   */
  rebind(chooser: WsSessionChooser, frames: readonly ClientFrame[]): void {
    const from = chooser.index as number;
    for (let i = 0; i < this.recorded.length; i++) {
      const mine = i === from ? undefined : this.fits(i, frames, chooser, this.names);
      if (!mine) continue;
      const other = this.holders.get(i);
      const both = other ? (other.closed ? undefined : this.fits(from, other.history, other, mine)) : mine;
      if (!both) continue;
      this.names.adopt(both);
      this.give(chooser, i);
      if (other) this.give(other, from);
      return;
    }
  }

  /** The names session `i` would leave, had it been `chooser`'s from the start; undefined if it does not fit. */
  private fits(i: number, frames: readonly ClientFrame[], chooser: WsSessionChooser, names: IssuedNames) {
    return (this.probes[i] as WsReplaySession).acceptsAll(frames, chooser.delivered.texts, names);
  }

  private give(chooser: WsSessionChooser, index: number): void {
    const before = chooser.index;
    if (before !== undefined && this.holders.get(before) === chooser) {
      this.holders.delete(before);
      (this.recorded[before] as WsRecorded).held(false);
    }
    this.holders.set(index, chooser);
    const recorded = this.recorded[index] as WsRecorded;
    recorded.held(true);
    chooser.take(index, recorded.replay(), this.names);
  }
}

/** Whether the recorded server sent a frame before the client's first. */
function serverSpeaksFirst(session: WsSession): boolean {
  return session.frames[0]?.from === 'server';
}
