import { payloadOf, payloadToWire, type WsPayload, type WsSession } from '../../cassette/index.js';
import type { CassetteClock } from '../cassette-clock.js';
import type { UnmatchedRequestError } from '../errors.js';
import { IssuedNames } from '../issued-values.js';
import type { TimingMode } from '../timing.js';
import { ClientFrames } from './client-frames.js';
import { acceptsAllFrames, type FrameSearch, findClientFrame, frameSearch, unmatchedFrame } from './find-frame.js';
import { ServerFrameGate } from './frame-gate.js';
import { RpcIds } from './rpc.js';
import type { ClientFrame, WsDelivered, WsOutgoing } from './types.js';

/** How a session reads live text as recorded text, and recorded text as this client expects it. */
export interface WsTexts {
  /** Live text as recorded text would read: secrets and this machine's folders as placeholders. */
  toRecorded(text: string): string;
  /** Recorded text as this client expects it: folder placeholders restored. */
  toLive(text: string): string;
}

/**
 * One replayed WebSocket session. Client frames are matched by content against
 * the recorded ones not yet seen (JSON-RPC ids by position); server frames are
 * released in recorded order, each once the client frame it followed has been
 * matched, with the ids of responses rewritten to the ids this client used.
 */
export class WsReplaySession {
  private readonly consumed = new Set<number>();
  private readonly ids = new RpcIds();
  private readonly clientFrames: ClientFrames;
  private readonly gate: ServerFrameGate;
  private readonly search: FrameSearch;
  /** What the connection was sent (shared with the sessions it moves between). */
  private delivered: WsDelivered = { texts: [], answered: new Set(), others: 0 };
  /** The names clients know recorded ids by (shared by every connection to this path). */
  private names = new IssuedNames();

  constructor(
    readonly cassette: string,
    readonly seq: number,
    readonly path: string,
    private readonly session: WsSession,
    private readonly clock: CassetteClock,
    private readonly texts: WsTexts,
    timing: TimingMode = { kind: 'instant' },
    recordedStart = 0,
  ) {
    this.clientFrames = new ClientFrames(session);
    this.gate = new ServerFrameGate(seq, session, clock, this.clientFrames, timing, recordedStart);
    this.search = frameSearch(session, texts.toRecorded);
  }

  /** Marks the moment the connection was given this session: what followed the handshake alone is timed from it. */
  opened(): void {
    this.gate.opened();
  }

  get end(): WsSession['end'] {
    return this.session.end;
  }

  /** Shares the connection's record of what it was sent (a session it moves to knows what was handed out) and the path's names. */
  attach(delivered: WsDelivered, names: IssuedNames): void {
    this.delivered = delivered;
    this.names = names;
  }

  /** The names a fresh replay of this session would take for these client frames, or undefined if one does not fit. */
  acceptsAll(frames: readonly ClientFrame[], sent: readonly string[], names: IssuedNames): IssuedNames | undefined {
    return acceptsAllFrames(this.search, frames, sent, names);
  }

  /** Matches one live client frame; returns the error to report when no recorded client frame left matches it. */
  receive(data: Buffer, binary: boolean): UnmatchedRequestError | undefined {
    const found = findClientFrame(this.search, { data, binary }, this.consumed, this.names, this.delivered.texts);
    if (!found.hit) return unmatchedFrame(found, this);
    const [frame, index] = found.hit;
    this.consumed.add(index);
    for (const [a, b] of found.swaps) this.names.swap(a, b);
    this.ids.remember(frame, found.live);
    this.clientFrames.mark(frame.seq as number);
    this.clock.advance(frame.seq as number);
    return undefined;
  }

  /**
   * The server's frames, each once its cause was replayed; ends with the
   * recorded close, if the server sent one. A connection that moved here
   * from another session is not sent again what it already got.
   */
  async *outgoing(signal: AbortSignal): AsyncGenerator<WsOutgoing> {
    const delivered = this.delivered;
    const skip = alreadySent(delivered);
    for (const [index, frame] of this.session.frames.entries()) {
      if (frame.from === 'client') continue;
      const answers = frame.close ? undefined : this.ids.answers(payloadOf(frame) as WsPayload);
      if (skip(answers)) continue;
      await this.gate.released(frame, index, signal);
      noteSent(delivered, answers);
      if (frame.close) return yield { close: frame.close };
      const out = payloadToWire(this.ids.withLiveId(payloadOf(frame) as WsPayload));
      if (out.binary) yield out;
      else yield { data: noteText(delivered, this.names.toLive(this.texts.toLive(out.data as string))), binary: false };
    }
  }
}

/** What a connection that moved here was sent already: answers to requests answered, and as many other frames. */
function alreadySent(delivered: WsDelivered): (answers: string | undefined) => boolean {
  const answered = new Set(delivered.answered);
  let othersToSkip = delivered.others;
  return (answers) => {
    if (answers !== undefined) return answered.has(answers);
    if (othersToSkip <= 0) return false;
    othersToSkip -= 1;
    return true;
  };
}

/** Notes a server frame as sent: the answer to a request, or one more other frame. */
function noteSent(delivered: WsDelivered, answers: string | undefined): void {
  if (answers !== undefined) delivered.answered.add(answers);
  else delivered.others += 1;
}

/** Notes a text frame as the client got it (the values handed out to it are in these). */
function noteText(delivered: WsDelivered, text: string): string {
  delivered.texts.push(text);
  return text;
}
