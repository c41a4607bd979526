import { isRecord, payloadFromWire, payloadOf, payloadToWire, type WsFrame, type WsPayload, type WsSession } from '../cassette/index.js';
import { abortableSleep } from './abortable-sleep.js';
import type { CassetteClock } from './cassette-clock.js';
import { type NearMiss, UnmatchedRequestError } from './errors.js';
import { frameCauses } from './frame-causes.js';
import { equalModuloIssued, IssuedNames, type IssuedValues } from './issued-values.js';
import { firstDifference, stableKey } from './match-request.js';
import type { TimingMode } from './timing.js';

/** What the replay sends to the client next: a data frame, or the recorded close. */
export type WsOutgoing = { data: Buffer | string; binary: boolean } | { close: { code: number; reason: string } };

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
  /** When (performance.now) each of this session's client frames was matched, by recorded seq. */
  private readonly matchedAt = new Map<number, number>();
  private waiters: { seq: number; resolve: () => void }[] = [];
  /** This session's client frames by recorded seq. */
  private readonly own: Map<number, WsFrame>;
  /** What the connection was sent (shared with the sessions it moves between). */
  private delivered: WsDelivered = { texts: [], answered: new Set(), others: 0 };
  /** The names clients know recorded ids by (shared by every connection to this path). */
  private names = new IssuedNames();
  private recordedServerText: string | undefined;
  /** Per server frame (by index), the client frame of another connection it waits for (frame-causes.ts). */
  private crossCauses: Map<number, number> | undefined;

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
  ) {
    this.own = new Map(session.frames.flatMap((f) => (f.from === 'client' ? [[f.seq as number, f] as const] : [])));
  }

  /** When this connection was opened in replay. */
  private openedAt = performance.now();

  /** Marks the moment the connection was given this session: what followed the handshake alone is timed from it. */
  opened(): void {
    this.openedAt = performance.now();
  }

  /**
   * The client frame of this session a server frame answers: the latest one
   * recorded at or before its `after`. The recorder stamps `after` with the
   * latest seq of the whole cassette, which with several connections open may
   * be another connection's frame; this connection must not wait for that one.
   */
  private ownCause(frame: WsFrame): number | undefined {
    let cause: number | undefined;
    for (const seq of this.own.keys()) if (seq <= frame.after && (cause === undefined || seq > cause)) cause = seq;
    return cause;
  }

  /** Waits until this session's client frame `seq` has been matched. */
  private matched(seq: number, signal: AbortSignal): Promise<void> {
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

  /**
   * Waits for what a server frame followed in the recording: its own
   * connection's client frame; when it followed an HTTP exchange (or
   * another connection's handshake), that too on the cassette's clock; and
   * another connection's client frame about the same thread or turn, once that
   * connection has sent it (a turn started over a connection of its own).
   */
  private async caused(frame: WsFrame, index: number, signal: AbortSignal): Promise<void> {
    if (frame.after <= this.seq) return;
    const own = this.ownCause(frame);
    if (own !== undefined) await this.matched(own, signal);
    if (!this.own.has(frame.after) && this.clock.interaction(frame.after) && !this.clock.reached(frame.after))
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
    const own = frame.after > this.seq ? this.ownCause(frame) : undefined;
    const cause = own === undefined ? undefined : this.own.get(own);
    const anchorAt = own === undefined ? this.openedAt : (this.matchedAt.get(own) ?? performance.now());
    const recordedAnchor = cause ? cause.at : this.recordedStart;
    return anchorAt + this.timing.factor * (frame.at - recordedAnchor) - performance.now();
  }

  get end(): WsSession['end'] {
    return this.session.end;
  }

  /**
   * Shares the connection's record of what it was sent (a session it moves to
   * knows what was handed out and answered) and the path's names for ids.
   */
  attach(delivered: WsDelivered, names: IssuedNames): void {
    this.delivered = delivered;
    this.names = names;
  }

  /**
   * Whether a fresh replay of this session would match every one of these
   * client frames in turn, for a connection that was sent `sent`: the names
   * that would take if so, else undefined (nothing is consumed or renamed).
   */
  acceptsAll(frames: readonly ClientFrame[], sent: readonly string[], names: IssuedNames): IssuedNames | undefined {
    const consumed = new Set<number>();
    const trial = names.clone();
    for (const { data, binary } of frames) {
      const found = this.find(data, binary, consumed, trial, sent);
      if (!found.hit) return undefined;
      consumed.add(found.hit[1]);
      for (const [a, b] of found.swaps) trial.swap(a, b);
    }
    return trial;
  }

  /**
   * The recorded client frame a live one is: the same content, else the same
   * once ids this replay handed the client are read as the ones the recorded
   * server handed out (see issued-values.ts), with the swaps that takes.
   */
  private find(data: Buffer, binary: boolean, consumed: ReadonlySet<number>, names: IssuedNames, sent: readonly string[]) {
    const none = new Map<string, string>();
    const text = binary ? '' : names.toRecorded(this.toRecorded(data.toString('utf8')));
    const live = payloadFromWire(binary ? data : Buffer.from(text), binary);
    const want = stableKey(comparable(live));
    const candidates = this.session.frames.flatMap((f, i) =>
      f.from === 'client' && !consumed.has(i) && payloadOf(f) ? [[f, i] as const] : [],
    );
    const hit = candidates.find(([f]) => stableKey(comparable(payloadOf(f) as WsPayload)) === want);
    if (hit || !('json' in live)) return { live, candidates, hit, swaps: none };
    this.recordedServerText ??= this.session.frames
      .filter((f) => f.from === 'server' && f.json !== undefined)
      .map((f) => JSON.stringify(f.json))
      .join('\n');
    const serverText = this.recordedServerText;
    const issued: IssuedValues = {
      sentLive: (v) => sent.some((t) => t.includes(names.live(v))),
      sentRecorded: (v) => serverText.includes(v),
    };
    const liveJson = (comparable(live) as { json: unknown }).json;
    for (const candidate of candidates) {
      const recorded = comparable(payloadOf(candidate[0]) as WsPayload) as WsPayload;
      const swaps = new Map<string, string>();
      if ('json' in recorded && equalModuloIssued(liveJson, recorded.json, issued, swaps))
        return { live, candidates, hit: candidate, swaps };
    }
    return { live, candidates, hit: undefined, swaps: none };
  }

  /**
   * Matches one live client frame. Returns the error to report when no recorded
   * client frame left matches it.
   */
  receive(data: Buffer, binary: boolean): UnmatchedRequestError | undefined {
    const { live, candidates, hit, swaps } = this.find(data, binary, this.consumed, this.names, this.delivered.texts);
    if (!hit) return this.unmatched(live, candidates);
    const [frame, index] = hit;
    this.consumed.add(index);
    for (const [a, b] of swaps) this.names.swap(a, b);
    const recordedId = 'json' in live ? rpcId(frame.json) : undefined;
    if (recordedId !== undefined && isRecord(frame.json) && 'method' in frame.json)
      this.ids.set(JSON.stringify(recordedId), (live as { json: Record<string, unknown> }).json.id);
    const seq = frame.seq as number;
    this.matchedAt.set(seq, performance.now());
    const ready = this.waiters.filter((w) => w.seq === seq);
    this.waiters = this.waiters.filter((w) => w.seq !== seq);
    for (const w of ready) w.resolve();
    this.clock.advance(seq);
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
        path: `${this.path} session #${this.seq} frame ${i}`,
        differs: d ? [d] : [],
      }));
    const preview = JSON.stringify('json' in live ? live.json : 'text' in live ? live.text : '(binary)').slice(0, 60);
    return new UnmatchedRequestError('WS', `${this.path} frame ${preview}`, nearest);
  }

  /**
   * The server's frames, each once its cause was replayed; ends with the
   * recorded close, if the server sent one. A connection that moved here
   * from another session is not sent again what it already got: answers to
   * requests already answered, and as many other frames as it was sent.
   */
  async *outgoing(signal: AbortSignal): AsyncGenerator<WsOutgoing> {
    const delivered = this.delivered;
    const answered = new Set(delivered.answered);
    let othersToSkip = delivered.others;
    for (const [index, frame] of this.session.frames.entries()) {
      if (frame.from === 'client') continue;
      const answers = frame.close ? undefined : this.answers(payloadOf(frame) as WsPayload);
      if (answers !== undefined ? answered.has(answers) : othersToSkip > 0) {
        if (answers === undefined) othersToSkip -= 1;
        continue;
      }
      await this.caused(frame, index, signal);
      const wait = this.untilDue(frame);
      if (wait > 0) await abortableSleep(wait, signal);
      if (answers !== undefined) delivered.answered.add(answers);
      else delivered.others += 1;
      if (frame.close) {
        yield { close: frame.close };
        return;
      }
      const out = payloadToWire(this.withLiveId(payloadOf(frame) as WsPayload));
      if (out.binary) {
        yield out;
        continue;
      }
      const text = this.names.toLive(this.toLive(out.data as string));
      delivered.texts.push(text);
      yield { data: text, binary: false };
    }
  }

  /** For a JSON-RPC response, the live id of the request it answers. */
  private answers(p: WsPayload): string | undefined {
    if (!('json' in p) || !isRecord(p.json) || 'method' in p.json) return undefined;
    const id = rpcId(p.json);
    if (id === undefined) return undefined;
    const key = JSON.stringify(id);
    return JSON.stringify(this.ids.has(key) ? this.ids.get(key) : id);
  }

  /** A recorded response to a client request carries the id the live client used for it. */
  private withLiveId(p: WsPayload): WsPayload {
    if (!('json' in p) || !isRecord(p.json) || 'method' in p.json) return p;
    const id = rpcId(p.json);
    const key = JSON.stringify(id);
    return id !== undefined && this.ids.has(key) ? { json: { ...p.json, id: this.ids.get(key) } } : p;
  }
}

/** What one connection has been sent, whichever sessions it came from. */
export interface WsDelivered {
  /** Text frames as the client got them: the values handed out to it are in these. */
  texts: string[];
  /** Live ids of the requests answered. */
  answered: Set<string>;
  /** How many frames that were not answers. */
  others: number;
}

/** A client frame as a connection sent it. */
export interface ClientFrame {
  data: Buffer;
  binary: boolean;
}

/** What a door needs of a replayed WebSocket session. */
export interface WsSessionLike {
  readonly end: WsSession['end'];
  receive(data: Buffer, binary: boolean): UnmatchedRequestError | undefined;
  outgoing(signal: AbortSignal): AsyncGenerator<WsOutgoing>;
}

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

  constructor(private readonly pool: WsSessionPool) {}

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

/** Whether the recorded server sent a frame before the client's first. */
function serverSpeaksFirst(session: WsSession): boolean {
  return session.frames[0]?.from === 'server';
}
