import type { WsFrame, WsSession } from '../../cassette/index.js';
import { abortableSleep } from '../abortable-sleep.js';
import type { CassetteClock } from '../cassette-clock.js';
import { frameCauses } from '../frame-causes.js';
import type { TimingMode } from '../timing.js';
import type { ClientFrames } from './client-frames.js';

/** When a session's server frames may go: after what caused them in the recording, and at their recorded distance. */
export class ServerFrameGate {
  /** Per server frame (by index), the client frame of another connection it waits for (frame-causes.ts). */
  private crossCauses: Map<number, number> | undefined;
  /** When this connection was opened in replay. */
  private openedAt = performance.now();

  constructor(
    private readonly seq: number,
    private readonly session: WsSession,
    private readonly clock: CassetteClock,
    private readonly clientFrames: ClientFrames,
    private readonly timing: TimingMode,
    /** When the recorded handshake was made: frames that followed it alone keep their distance from it. */
    private readonly recordedStart: number,
  ) {}

  /** Marks the moment the connection was given this session: what followed the handshake alone is timed from it. */
  opened(): void {
    this.openedAt = performance.now();
  }

  /** Waits until a server frame may go: its causes replayed, then its recorded distance from them (when timed). */
  async released(frame: WsFrame, index: number, signal: AbortSignal): Promise<void> {
    await this.caused(frame, index, signal);
    const wait = this.untilDue(frame);
    if (wait > 0) await abortableSleep(wait, signal);
  }

  /**
   * Waits for what a server frame followed in the recording: its own
   * connection's client frame; when it followed an HTTP exchange (or
   * another connection's handshake), that too on the cassette's clock; and
   * another connection's client frame about the same thread or turn, once that
   * connection has sent it (a turn started over a connection of its own).
   */
  private async caused(frame: WsFrame, index: number, signal: AbortSignal): Promise<void> {
    if (frame.after <= this.seq) return;
    const own = this.clientFrames.causeOf(frame);
    if (own !== undefined) await this.clientFrames.matched(own, signal);
    if (!this.clientFrames.has(frame.after) && this.clock.interaction(frame.after) && !this.clock.reached(frame.after))
      await this.clock.waitReached(frame.after, signal);
    this.crossCauses ??= frameCauses(this.clock.cassette, this.session);
    const other = this.crossCauses.get(index);
    if (other !== undefined && !this.clock.reached(other)) await this.clock.waitReached(other, signal);
  }

  /**
   * How long a server frame must still wait, in realtime or scaled timing: its
   * recorded distance from the client frame that caused it (or from the
   * handshake), counted from when that frame (or this connection) came in replay.
   */
  private untilDue(frame: WsFrame): number {
    if (this.timing.kind === 'instant') return 0;
    const own = frame.after > this.seq ? this.clientFrames.causeOf(frame) : undefined;
    const cause = own === undefined ? undefined : this.clientFrames.get(own);
    const anchorAt = own === undefined ? this.openedAt : (this.clientFrames.when(own) ?? performance.now());
    const recordedAnchor = cause ? cause.at : this.recordedStart;
    return anchorAt + this.timing.factor * (frame.at - recordedAnchor) - performance.now();
  }
}
