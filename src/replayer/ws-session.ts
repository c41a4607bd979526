import { payloadFromWire, payloadOf, payloadToWire, type WsFrame, type WsPayload, type WsSession } from '../cassette/index.js';
import { abortableSleep } from './abortable-sleep.js';
import type { CassetteClock } from './cassette-clock.js';
import { type NearMiss, UnmatchedRequestError } from './errors.js';
import { firstDifference, stableKey } from './match-request.js';
import type { TimingMode } from './timing.js';

/** What the replay sends to the client next: a data frame, or the recorded close. */
export type WsOutgoing = { data: Buffer | string; binary: boolean } | { close: { code: number; reason: string } };

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
/** A JSON-RPC message carries an `id` next to `method` (a request) or to `result`/`error` (a response). */
const rpcId = (v: unknown): unknown => (isRecord(v) && ('method' in v || 'result' in v || 'error' in v) ? v.id : undefined);

/** A payload as it is compared: JSON-RPC ids left out, since they are matched by position, not value. */
function comparable(p: WsPayload): unknown {
  if (!('json' in p) || !isRecord(p.json) || rpcId(p.json) === undefined) return p;
  const { id: _id, ...rest } = p.json;
  return { json: rest };
}

/**
 * One replayed WebSocket session. Client frames are matched by content against
 * the recorded ones not yet seen (JSON-RPC ids by position); server frames are
 * released in recorded order, each once the client frame it followed has been
 * matched, with the ids of responses rewritten to the ids this client used.
 */
export class WsReplaySession {
  private readonly consumed = new Set<number>();
  /** Recorded request id → the id this client sent in its place. */
  private readonly ids = new Map<string, unknown>();

  constructor(
    readonly cassette: string,
    readonly seq: number,
    readonly path: string,
    private readonly session: WsSession,
    private readonly clock: CassetteClock,
    /** Live text as recorded text would read: secrets and this machine's folders as placeholders. */
    private readonly toRecorded: (text: string) => string,
    /** Recorded text as this client expects it: folder placeholders restored. */
    private readonly toLive: (text: string) => string,
    private readonly timing: TimingMode = { kind: 'instant' },
    /** When the recorded handshake was made: frames that followed it alone keep their distance from it. */
    private readonly recordedStart = 0,
  ) {}

  /** When this connection was opened in replay. */
  private openedAt = performance.now();

  /** Marks the moment the connection was given this session: what followed the handshake alone is timed from it. */
  opened(): void {
    this.openedAt = performance.now();
  }

  /**
   * How long a server frame must still wait, in realtime or scaled timing: its
   * recorded distance from the client frame that caused it (or from the
   * handshake), counted from when that frame (or this connection) came in replay.
   */
  private untilDue(frame: WsFrame): number {
    if (this.timing.kind === 'instant') return 0;
    const cause = frame.after > this.seq ? this.session.frames.find((f) => f.seq === frame.after) : undefined;
    const anchorAt = cause ? (this.clock.reachedAt(frame.after) ?? performance.now()) : this.openedAt;
    const recordedAnchor = cause ? cause.at : this.recordedStart;
    return anchorAt + this.timing.factor * (frame.at - recordedAnchor) - performance.now();
  }

  get end(): WsSession['end'] {
    return this.session.end;
  }

  /** Whether a live client frame matches a recorded client frame not yet seen (nothing is consumed). */
  accepts(data: Buffer, binary: boolean): boolean {
    return this.find(data, binary).hit !== undefined;
  }

  private find(data: Buffer, binary: boolean) {
    const live = payloadFromWire(binary ? data : Buffer.from(this.toRecorded(data.toString('utf8'))), binary);
    const want = stableKey(comparable(live));
    const candidates = this.session.frames.flatMap((f, i) =>
      f.from === 'client' && !this.consumed.has(i) && payloadOf(f) ? [[f, i] as const] : [],
    );
    const hit = candidates.find(([f]) => stableKey(comparable(payloadOf(f) as WsPayload)) === want);
    return { live, candidates, hit };
  }

  /**
   * Matches one live client frame. Returns the error to report when no recorded
   * client frame left matches it.
   */
  receive(data: Buffer, binary: boolean): UnmatchedRequestError | undefined {
    const { live, candidates, hit } = this.find(data, binary);
    if (!hit) return this.unmatched(live, candidates);
    const [frame, index] = hit;
    this.consumed.add(index);
    const recordedId = 'json' in live ? rpcId(frame.json) : undefined;
    if (recordedId !== undefined && isRecord(frame.json) && 'method' in frame.json)
      this.ids.set(JSON.stringify(recordedId), (live as { json: Record<string, unknown> }).json.id);
    this.clock.advance(frame.seq as number);
    return undefined;
  }

  private unmatched(live: WsPayload, candidates: (readonly [WsFrame, number])[]): UnmatchedRequestError {
    const nearest: NearMiss[] = candidates
      .map(([f, i]) => ({ i, f, d: firstDifference(comparable(payloadOf(f) as WsPayload), comparable(live), 'frame') }))
      .slice(0, 3)
      .map(({ f, i, d }) => ({
        seq: f.seq as number,
        cassette: this.cassette,
        method: 'WS',
        path: `${this.path} frame ${i}`,
        differs: d ? [d] : [],
      }));
    const preview = JSON.stringify('json' in live ? live.json : 'text' in live ? live.text : '(binary)').slice(0, 60);
    return new UnmatchedRequestError('WS', `${this.path} frame ${preview}`, nearest);
  }

  /** The server's frames, each once its cause was replayed; ends with the recorded close, if the server sent one. */
  async *outgoing(signal: AbortSignal): AsyncGenerator<WsOutgoing> {
    for (const frame of this.session.frames) {
      if (frame.from === 'client') continue;
      if (frame.after > this.seq && !this.clock.reached(frame.after)) await this.clock.waitReached(frame.after, signal);
      const wait = this.untilDue(frame);
      if (wait > 0) await abortableSleep(wait, signal);
      if (frame.close) {
        yield { close: frame.close };
        return;
      }
      const out = payloadToWire(this.withLiveId(payloadOf(frame) as WsPayload));
      yield out.binary ? out : { data: this.toLive(out.data as string), binary: false };
    }
  }

  /** A recorded response to a client request carries the id the live client used for it. */
  private withLiveId(p: WsPayload): WsPayload {
    if (!('json' in p) || !isRecord(p.json) || 'method' in p.json) return p;
    const id = rpcId(p.json);
    const key = JSON.stringify(id);
    return id !== undefined && this.ids.has(key) ? { json: { ...p.json, id: this.ids.get(key) } } : p;
  }
}

/** What a door needs of a replayed WebSocket session. */
export interface WsSessionLike {
  readonly end: WsSession['end'];
  receive(data: Buffer, binary: boolean): UnmatchedRequestError | undefined;
  outgoing(signal: AbortSignal): AsyncGenerator<WsOutgoing>;
}

/** A recorded session a connection may be given, and how to claim it (once: a claimed session is no one else's). */
export interface WsCandidate {
  session: WsSession;
  /** The session to replay, unless another connection claimed it meanwhile. */
  claim(): WsReplaySession | undefined;
  /** Whether a first frame is one this session was recorded with (nothing claimed). */
  wouldAccept(data: Buffer, binary: boolean): boolean;
}

/**
 * A connection not yet tied to a recorded session: several clients on one path
 * (two at once, or start then resume) each get the session their own first
 * frame was recorded in. A session whose server spoke first is claimed at
 * once, in recorded order, since its first frame cannot wait for the client.
 */
export class WsSessionChooser implements WsSessionLike {
  private bound: WsReplaySession | undefined;
  private wake: (() => void) | undefined;
  private readonly ready = new Promise<void>((resolve) => {
    this.wake = resolve;
  });

  constructor(private readonly candidates: readonly WsCandidate[]) {
    const first = candidates[0];
    if (first && serverSpeaksFirst(first.session)) this.bind(first);
  }

  get end(): WsSession['end'] {
    return this.bound ? this.bound.end : (this.candidates[0]?.session.end ?? 'server-closed');
  }

  private bind(c: WsCandidate): boolean {
    const session = c.claim();
    if (!session) return false;
    session.opened();
    this.bound = session;
    this.wake?.();
    return true;
  }

  receive(data: Buffer, binary: boolean): UnmatchedRequestError | undefined {
    if (!this.bound) {
      // The session this first frame was recorded in; failing that, the next in recorded order (which then reports the miss).
      const fits = this.candidates.filter((c) => c.wouldAccept(data, binary));
      if (!fits.some((c) => this.bind(c)) && !this.candidates.some((c) => this.bind(c)))
        return new UnmatchedRequestError('WS', 'a connection whose recorded sessions were all taken by other connections', []);
    }
    return (this.bound as WsReplaySession).receive(data, binary);
  }

  async *outgoing(signal: AbortSignal): AsyncGenerator<WsOutgoing> {
    if (!this.bound) {
      const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      await Promise.race([this.ready, aborted]);
      if (!this.bound) return;
    }
    yield* (this.bound as WsReplaySession).outgoing(signal);
  }
}

/** Whether the recorded server sent a frame before the client's first. */
function serverSpeaksFirst(session: WsSession): boolean {
  return session.frames[0]?.from === 'server';
}
