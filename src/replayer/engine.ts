import { performance } from 'node:perf_hooks';
import {
  type Body,
  type Cassette,
  type ContentEncoding,
  contentEncodingOf,
  currentFolders,
  decodeBody,
  decodeContent,
  encodeContent,
  folderRestorer,
  type Headers,
  type Interaction,
  MAX_STORED_BODY,
  type MachineFolders,
  makeRedactor,
  placeholderMapper,
  type RedactionConfig,
  type Redactor,
  restoreBody,
  type SseItem,
  type StreamEnd,
  type WsSession,
} from '../cassette/index.js';
import { serializeSseFrame } from '../sse/index.js';
import { abortableSleep } from './abortable-sleep.js';
import { CassetteClock } from './cassette-clock.js';
import { type Echoes, echoesOf, placeholdersIn, restoreEchoes } from './echoes.js';
import { encodeStream } from './encode-stream.js';
import { type NearMiss, UnmatchedRequestError } from './errors.js';
import {
  differences,
  isMutating,
  type MatchOptions,
  pathnameOf,
  type ReplayRequest,
  type RequestShape,
  recordedShape,
  shapeKey,
  shapeOf,
} from './match-request.js';
import { type StreamCauses, streamCauses } from './stream-causes.js';
import { parseTiming, type TimingMode } from './timing.js';
import { WsReplaySession, type WsSessionLike, WsSessionPool } from './ws/index.js';

export interface ReplayOptions extends MatchOptions {
  /** strict (default): an unmatched request is an error; lenient: logged and answered 404. */
  mode?: 'strict' | 'lenient';
  /** instant (default), realtime, or scaled:<factor>. */
  timing?: TimingMode | string;
  /** The HTTP status of a strict miss from the replay server (default 400: not retried by common clients). */
  onMiss?: number;
  /** The largest request body the replay server reads before answering 413 (default 64 MiB). */
  maxRequestBody?: number;
  /** After the last recorded answer of a repeated request: repeat it (default) or fail. */
  onExhausted?: 'repeat' | 'error';
  /** The client's own workspace, home and temp folders, put back where the cassette has placeholders. */
  folders?: MachineFolders;
  /** The redaction the cassettes were recorded with: live requests get the same, so they match. */
  redact?: RedactionConfig;
  /**
   * Re-chunks each stream's bytes on their way out (fuzzing: other chunk
   * boundaries, other line endings); which bytes are due, and when, is unchanged.
   */
  reframe?: (frames: AsyncGenerator<Buffer>, stream: EntryInfo) => AsyncGenerator<Buffer>;
}

export interface NamedCassette {
  name: string;
  cassette: Cassette;
}

interface Entry {
  name: string;
  /** Position of its cassette in the set: a set replays as the sequence of runs it was recorded as. */
  index: number;
  clock: CassetteClock;
  interaction: Interaction;
  /** Computed with the rest of its route on the route's first request (see `indexRoute`). */
  shape?: RequestShape;
  /** The latest state-changing request recorded before this one. */
  anchor: number;
  served: boolean;
  /** Response headers and body bytes, computed on first use: they never change. */
  prepared?: { headers: [string, string][]; body: Buffer; bodiless: boolean; trailers: [string, string][] | undefined };
  /** Per event of its stream, the request it waits for (decision 0008), computed on first use. */
  causes?: StreamCauses;
  /** Per event of its stream, its wire text, computed on first use: a stream replayed again is not encoded again. */
  wire?: string[];
  /** The placeholders its recorded answer holds, where a live request's values may be given back (decision 0016). */
  placeholders?: Set<string>;
}

export type ReplayAnswer =
  | {
      kind: 'response';
      entry: EntryInfo;
      status: number;
      headers: [string, string][];
      body: Buffer;
      delayMs: number;
      /**
       * How the body ended when recorded: whole; `broken` (the upstream reset
       * or cut it short: send these bytes, then break the connection); or
       * `client-closed` (the recorded client stopped reading: send these bytes and keep the response open).
       */
      end: BodyEnd;
      /**
       * No body by definition (the answer to a HEAD, a 1xx, 204 or 304): the
       * recorded content-length, if any, is among the headers as the server sent it, and doors add none of their own.
       */
      bodiless: boolean;
      /** Trailer fields to send after a whole body (decision 0014); a door that has a body's length then leaves it out. */
      trailers?: [string, string][] | undefined;
    }
  | {
      kind: 'stream';
      entry: EntryInfo;
      status: number;
      headers: [string, string][];
      frames: (signal: AbortSignal) => AsyncGenerator<Buffer>;
      end: StreamEnd;
      /** Trailer fields to send after a stream the server ended. */
      trailers?: [string, string][] | undefined;
    }
  | { kind: 'failure'; entry: EntryInfo; status: 502; body: Buffer }
  | { kind: 'websocket'; entry: EntryInfo; status: 101; session: WsSessionLike }
  | {
      kind: 'unmatched';
      error: UnmatchedRequestError;
      /** Strict: the client under test must fail (in-process doors throw or fail the fetch). */
      strict: boolean;
      status: number;
      body: Buffer;
    };

/**
 * What a strict miss answers over HTTP: a 4xx that no common client retries
 * (the openai SDK retries 408, 409, 429 and 5xx; undici's RetryAgent 429 and
 * 500-504; httpx nothing), so a miss is one line in the log, not three.
 */
export const STRICT_MISS_STATUS = 400;

/** How many unmatched requests an engine keeps for its report (the count goes on). */
export const MISSES_KEPT = 100;

/** A live request with a compressed body as its content (decision 0015); any other request as it came. */
function contentOf(live: ReplayRequest): ReplayRequest {
  if (live.body.byteLength === 0) return live;
  const header = live.headers['content-encoding'];
  const encoding = contentEncodingOf(Array.isArray(header) ? header[0] : header);
  const content = encoding && decodeContent(live.body, encoding, MAX_STORED_BODY);
  return content ? { ...live, body: content } : live;
}

/** How a recorded plain body ended. */
export type BodyEnd = 'complete' | 'broken' | 'client-closed';

/** The answers a plain HTTP request can get. */
export type HttpAnswer = Exclude<ReplayAnswer, { kind: 'websocket' }>;

export interface EntryInfo {
  cassette: string;
  seq: number;
}

/** Whether recorded text is JSON: a placeholder standing for a number then takes the number back, unquoted. */
function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
function utf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Answers requests from recorded cassettes, independent of any front door.
 * Matching is by content; among identical requests a state-changing one takes
 * the next recorded answer, a read takes the latest answer that is due (its
 * preceding state changes replayed), never one out of order and never one ahead.
 */
export class ReplayEngine {
  private readonly groups = new Map<string, Entry[]>();
  /**
   * Entries per path (no query) whose shapes are not yet computed: opening a
   * replay only sorts interactions by path, and a path's shapes are built when
   * a request first takes it (a big cassette opens in a fraction of the time).
   */
  private readonly pending = new Map<string, Entry[]>();
  private readonly cursors = new Map<string, number>();
  /** Recorded WebSocket sessions a connection holds: each is replayed to one connection only. */
  /** Per path with recorded WebSocket sessions, which connection holds which session. */
  private readonly pools = new Map<string, WsSessionPool>();
  /** When this client first got each polled group's first answer (timed replay of polls in order). */
  private readonly pollStarts = new Map<string, number>();
  private readonly entries: Entry[] = [];
  /** The latest cassette of the set the client has entered. */
  private current = 0;
  private readonly toPlaceholders: (s: string) => string;
  private readonly fromPlaceholders: (s: string) => string;
  private readonly redactor: Redactor;
  /** The redaction before decision 0016, made when a request first matches nothing: recordings made by it still match. */
  private earlier: Redactor | undefined;
  /** The headers matching reads (a multipart body's content type, `matchHeaders`): only these are scrubbed on a live request. */
  private readonly headersMatched: ReadonlySet<string>;
  readonly timing: TimingMode;
  readonly mode: 'strict' | 'lenient';
  readonly maxRequestBody: number | undefined;
  /** The latest unmatched requests (at most `MISSES_KEPT`), for front doors that report at the end. */
  readonly misses: UnmatchedRequestError[] = [];
  /** How many requests and frames matched nothing, all told; `misses` keeps only the latest `MISSES_KEPT`. */
  missCount = 0;

  constructor(
    cassettes: readonly NamedCassette[],
    private readonly options: ReplayOptions = {},
  ) {
    this.timing = parseTiming(options.timing);
    this.mode = options.mode ?? 'strict';
    this.maxRequestBody = options.maxRequestBody;
    const folders = options.folders ?? currentFolders();
    this.toPlaceholders = placeholderMapper(folders).text;
    this.fromPlaceholders = folderRestorer(folders);
    this.redactor = makeRedactor(options.redact);
    this.headersMatched = new Set(['content-type', ...(options.matchHeaders ?? []).map((h) => h.toLowerCase())]);
    for (const [index, { name, cassette }] of cassettes.entries()) {
      const clock = new CassetteClock(cassette);
      for (const interaction of cassette.interactions) {
        const entry: Entry = { name, index, clock, interaction, anchor: clock.anchorAtOrBefore(interaction.seq - 1), served: false };
        this.entries.push(entry);
        const route = pathnameOf(interaction.request.path);
        const waiting = this.pending.get(route);
        if (waiting) waiting.push(entry);
        else this.pending.set(route, [entry]);
      }
    }
  }

  /** Builds the shapes of one path's entries and files them in their groups, in recorded order. */
  private indexRoute(route: string): void {
    const waiting = this.pending.get(route);
    if (!waiting) return;
    this.pending.delete(route);
    for (const entry of waiting) {
      const shape = recordedShape(entry.interaction, this.options);
      entry.shape = shape;
      const key = shapeKey(shape);
      const group = this.groups.get(key);
      if (group) group.push(entry);
      else this.groups.set(key, [entry]);
    }
  }

  /** Every path indexed: for a near-miss report or the list of unused interactions. */
  private indexAll(): void {
    for (const route of [...this.pending.keys()]) this.indexRoute(route);
  }

  /** Counts a miss and keeps it among the latest few: a client that misses forever must not grow memory forever. */
  /** Takes back a miss a front door answered another way (`record: 'missing'` sends it to the real server). */
  withdrawMiss(error: UnmatchedRequestError): void {
    const at = this.misses.lastIndexOf(error);
    if (at === -1) return;
    this.misses.splice(at, 1);
    this.missCount -= 1;
  }

  recordMiss(error: UnmatchedRequestError): void {
    this.missCount += 1;
    this.misses.push(error);
    if (this.misses.length > MISSES_KEPT) this.misses.shift();
  }

  /** Chooses the recorded answer for a request and marks it served; a recorded WebSocket session answers 426. */
  handle(live: ReplayRequest): HttpAnswer {
    return this.serve(live, false) as HttpAnswer;
  }

  /** Answers a WebSocket upgrade: a recorded session, or what was recorded for a refused one. */
  upgrade(live: ReplayRequest): ReplayAnswer {
    return this.serve(live, true);
  }

  private serve(live: ReplayRequest, upgrade: boolean): ReplayAnswer {
    const content = contentOf(live);
    let req = this.redacted(content);
    let shape = shapeOf(req, this.options, this.toPlaceholders);
    this.indexRoute(shape.pathname);
    let key = shapeKey(shape);
    let group = this.groups.get(key);
    if (!group) {
      // Recorded before decision 0015, a compressed body was kept as its bytes; before decision 0016, every value
      // under a secret-sounding name was redacted: each is tried when the request as redacted now matches nothing.
      const earlier = this.earlierRedactor();
      const tries: [ReplayRequest, Redactor][] =
        content === live
          ? [[live, earlier]]
          : [
              [live, this.redactor],
              [content, earlier],
              [live, earlier],
            ];
      for (const [sent, redactor] of tries) {
        const asSent = this.redacted(sent, redactor);
        const sentShape = shapeOf(asSent, this.options, this.toPlaceholders);
        const sentKey = shapeKey(sentShape);
        const sentGroup = this.groups.get(sentKey);
        if (sentGroup) {
          [req, shape, key, group] = [asSent, sentShape, sentKey, sentGroup];
          break;
        }
      }
    }
    if (upgrade && group?.[0]?.interaction.response?.websocket) {
      const answer = this.websocketAnswer(key, group);
      if (answer) return answer;
    }
    const chosen = group && this.choose(key, group);
    if (!chosen) return this.unmatched(req, shape);
    const { entry, advances } = chosen;
    entry.served = true;
    if (advances) {
      entry.clock.advance(entry.interaction.seq);
      this.current = Math.max(this.current, entry.index);
    }
    return this.answer(entry, upgrade, content, req);
  }

  /**
   * The live request's values behind the placeholders its recorded answer holds: a client-picked id the server
   * gives back (decision 0016). Worked out only for an answer that holds a placeholder.
   */
  private echoes(entry: Entry, live: ReplayRequest, redacted: ReplayRequest): Echoes | undefined {
    const response = entry.interaction.response;
    entry.placeholders ??= response ? placeholdersIn(JSON.stringify([response.body, response.stream])) : new Set();
    if (entry.placeholders.size === 0 || (live.path === redacted.path && live.body === redacted.body)) return undefined;
    const text = (b: Uint8Array) => (b.byteLength === 0 ? '' : (utf8(b) ?? ''));
    const echoes = echoesOf(
      { path: live.path, body: text(live.body) },
      { path: redacted.path, body: text(redacted.body) },
      entry.placeholders,
    );
    return echoes.size > 0 ? echoes : undefined;
  }

  /**
   * The answer for the next request of a group, and whether serving it moves
   * the client along the timeline (a fallback answer to an early read does not).
   */
  private choose(key: string, group: Entry[]): { entry: Entry; advances: boolean } | undefined {
    const cursor = this.cursors.get(key) ?? -1;
    let next = -1;
    let advances = true;
    // A WebSocket session is a conversation of its own: each new connection takes the next one, as a write takes its answer.
    if (isMutating(group[0]?.interaction.request.method ?? 'GET') || group[0]?.interaction.response?.websocket) {
      next = cursor + 1 < group.length ? cursor + 1 : -1;
    } else {
      for (let i = group.length - 1; i > cursor; i--) {
        if (this.isDue(group[i] as Entry)) {
          next = i;
          break;
        }
      }
      // Nothing state-changing before even the latest due answer: a poll from the start, replayed in order.
      if (next !== -1 && (group[next] as Entry).anchor === 0) next = this.nextPoll(key, group, cursor);
      if (next === -1 && cursor === -1) {
        next = 0;
        advances = false;
      }
    }
    if (next === -1) {
      if (this.options.onExhausted === 'error' || cursor === -1) return undefined;
      return { entry: group[cursor] as Entry, advances: false };
    }
    this.cursors.set(key, next);
    return { entry: group[next] as Entry, advances };
  }

  /**
   * Identical reads with no state change recorded before them (a poll from
   * the start) replay in recorded order (decision 0002): instant, the next
   * one each time; timed, the latest whose recorded distance from the
   * group's first answer has passed since this client got that first answer.
   * -1 when none is newly due (the last one then repeats).
   */
  private nextPoll(key: string, group: Entry[], cursor: number): number {
    if (this.timing.kind === 'instant') return cursor + 1;
    const now = performance.now();
    const first = group[0] as Entry;
    let started = this.pollStarts.get(key);
    if (started === undefined) {
      started = now;
      this.pollStarts.set(key, now);
    }
    const elapsed = now - started;
    let next = cursor === -1 ? 0 : -1;
    for (let i = Math.max(cursor + 1, 1); i < group.length; i++) {
      const e = group[i] as Entry;
      if (e.anchor !== 0 || this.timing.factor * (e.interaction.timing.start - first.interaction.timing.start) > elapsed) break;
      next = i;
    }
    return next;
  }

  /**
   * The request's path as a log line may show it: its secrets (a key in the query, a header's token repeated in
   * the path) replaced, as a recording has them. A replay's log ends up in CI output.
   */
  pathForLog(live: Pick<ReplayRequest, 'path' | 'headers'>): string {
    return this.redactor.request({ path: live.path, headers: live.headers, body: '' }).path;
  }

  private earlierRedactor(): Redactor {
    this.earlier ??= makeRedactor(this.options.redact, { judgeValues: false });
    return this.earlier;
  }

  /** The request with its secrets replaced as the recorder would have: recorded placeholders then match. */
  private redacted(req: ReplayRequest, redactor = this.redactor): ReplayRequest {
    const text = req.body.byteLength === 0 ? '' : utf8(req.body);
    const clean = redactor.request({ path: req.path, headers: req.headers, body: text ?? '' }, this.headersMatched);
    const body = text === undefined || clean.body === text ? req.body : Buffer.from(clean.body);
    return { method: req.method, path: clean.path, headers: clean.headers, body };
  }

  /** A recorded read is due once its anchor was replayed and, when timed, its recorded offset from it has passed. */
  private isDue(e: Entry): boolean {
    return (
      e.index <= this.current &&
      e.clock.reached(e.anchor) &&
      (e.anchor === 0 || this.delayFor(e, e.anchor, e.interaction.timing.start) <= 0)
    );
  }

  private unmatched(req: ReplayRequest, shape: RequestShape): ReplayAnswer {
    this.indexAll();
    const nearest: NearMiss[] = this.entries
      .map((e) => ({ e, differs: differences(e.shape as RequestShape, shape) }))
      .sort((a, b) => a.differs.length - b.differs.length || a.e.interaction.seq - b.e.interaction.seq)
      .slice(0, 3)
      .map(({ e, differs }) => ({
        seq: e.interaction.seq,
        cassette: e.name,
        method: e.interaction.request.method,
        path: e.interaction.request.path,
        differs,
      }));
    const error = new UnmatchedRequestError(req.method.toUpperCase(), req.path, nearest);
    this.recordMiss(error);
    const strict = this.mode === 'strict';
    const body = Buffer.from(
      JSON.stringify({
        error: {
          code: strict ? 'tapedeck_unmatched_request' : 'tapedeck_no_recording',
          message: error.message,
          nearest: nearest.map((n) => ({ cassette: n.cassette, seq: n.seq, differs: n.differs.slice(0, 3) })),
        },
      }),
    );
    return { kind: 'unmatched', error, strict, status: strict ? (this.options.onMiss ?? STRICT_MISS_STATUS) : 404, body };
  }

  /**
   * The recorded headers with placeholders filled. A body's content-length is
   * left to the door (the body served may differ from the one recorded); a
   * bodiless answer's is kept: it names the size of what a GET would get.
   */
  private headersOf(headers: Headers, bodiless: boolean): [string, string][] {
    const out: [string, string][] = [];
    let length: [string, string][] = [];
    for (const [name, value] of Object.entries(headers)) {
      const pairs = (Array.isArray(value) ? value : [value]).map((v): [string, string] => [name, this.fromPlaceholders(v)]);
      // Kept last, as the recorder writes it: node mangles a content-disposition that follows a content-length.
      if (name === 'content-length') length = bodiless ? pairs : [];
      else out.push(...pairs);
    }
    return [...out, ...length];
  }

  /** Milliseconds still to wait so that `recordedAt` keeps its recorded distance from request `anchorSeq`. */
  private delayFor(entry: Entry, anchorSeq: number, recordedAt: number): number {
    if (this.timing.kind === 'instant') return 0;
    const now = performance.now();
    const reachedAt = entry.clock.reachedAt(anchorSeq) ?? now;
    const anchoredAt = entry.clock.interaction(anchorSeq)?.timing.start ?? recordedAt;
    return reachedAt + this.timing.factor * (recordedAt - anchoredAt) - now;
  }

  /**
   * A connection to a path with recorded sessions: its path's pool gives it
   * the one its own frames were recorded in, among those no other connection
   * holds (several clients at once, or one after another as start then resume).
   */
  private websocketAnswer(key: string, group: Entry[]): ReplayAnswer | undefined {
    let pool = this.pools.get(key);
    if (!pool) {
      pool = new WsSessionPool(
        group.map((entry) => ({
          session: entry.interaction.response?.websocket as WsSession,
          replay: () => this.replaySession(entry),
          held: (taken) => {
            entry.served = taken;
            if (!taken) return;
            entry.clock.advance(entry.interaction.seq);
            this.current = Math.max(this.current, entry.index);
          },
        })),
      );
      this.pools.set(key, pool);
    }
    if (!pool.hasFree) return undefined;
    const first = group[0] as Entry;
    return { kind: 'websocket', entry: { cassette: first.name, seq: first.interaction.seq }, status: 101, session: pool.connect() };
  }

  private replaySession(entry: Entry): WsReplaySession {
    const i = entry.interaction;
    const toRecorded = (t: string) => this.toPlaceholders(this.redactor.request({ path: '/', headers: {}, body: t }).body);
    return new WsReplaySession(
      entry.name,
      i.seq,
      i.request.path,
      i.response?.websocket as WsSession,
      entry.clock,
      { toRecorded, toLive: this.fromPlaceholders },
      this.timing,
      i.timing.start,
    );
  }

  /** The answer to a request (`live`, as `redacted` matched it): the recorded one, with the values it echoes given back. */
  private answer(entry: Entry, upgrade: boolean, live: ReplayRequest, redacted: ReplayRequest): ReplayAnswer {
    const i = entry.interaction;
    const info = { cassette: entry.name, seq: i.seq };
    const websocket = i.response?.websocket;
    if (websocket && upgrade) return { kind: 'websocket', entry: info, status: 101, session: this.replaySession(entry) };
    if (websocket) {
      const message = 'this recording is a WebSocket session; connect with a WebSocket client (bench replay serves it)';
      const body = Buffer.from(JSON.stringify({ error: { code: 'tapedeck_websocket_only', message } }));
      return {
        kind: 'response',
        entry: info,
        status: 426,
        headers: [['content-type', 'application/json']],
        body,
        delayMs: 0,
        end: 'complete',
        bodiless: false,
      };
    }
    if (!i.response) {
      const message = `tapedeck replay: recorded upstream failure (${i.failure?.code}): ${i.failure?.message ?? ''}`;
      return {
        kind: 'failure',
        entry: info,
        status: 502,
        body: Buffer.from(JSON.stringify({ error: { code: i.failure?.code ?? 'upstream_error', message } })),
      };
    }
    const encoding = i.response.encoding;
    if (!entry.prepared) {
      const status = i.response.status;
      const bodiless = !i.response.stream && (i.request.method === 'HEAD' || status < 200 || status === 204 || status === 304);
      const trailers = i.response.trailers;
      entry.prepared = {
        headers: this.headersOf(i.response.headers, bodiless),
        body: i.response.stream ? Buffer.alloc(0) : this.bodyBytes(i.response.body, encoding),
        bodiless,
        trailers: trailers && Object.keys(trailers).length > 0 ? this.headersOf(trailers, false) : undefined,
      };
    }
    const { headers, bodiless, trailers } = entry.prepared;
    const stream = i.response.stream;
    const echoes = this.echoes(entry, live, redacted);
    if (!stream) {
      const body = echoes ? this.bodyBytes(i.response.body, encoding, echoes) : entry.prepared.body;
      const delayMs = this.timing.kind === 'instant' ? 0 : this.timing.factor * ((i.timing.end ?? i.timing.start) - i.timing.start);
      // A body too big to keep has no bytes to give: the status and headers, then the break, as if cut short.
      const omitted = i.response.body !== undefined && 'omitted' in i.response.body;
      const end: BodyEnd = omitted ? 'broken' : !i.failure ? 'complete' : i.failure.code === 'client_closed' ? 'client-closed' : 'broken';
      return { kind: 'response', entry: info, status: i.response.status, headers, body, delayMs, end, bodiless, trailers };
    }
    const servedAt = performance.now();
    const reframe = this.options.reframe;
    const frames = (signal: AbortSignal) => {
      const own = this.frames(entry, stream.events, servedAt, signal, echoes);
      const framed = reframe ? reframe(own, info) : own;
      return encoding ? encodeStream(framed, encoding) : framed;
    };
    return { kind: 'stream', entry: info, status: i.response.status, headers, frames, end: stream.end, trailers };
  }

  /** A recorded body as the client gets it: placeholders restored, encoded again when the server had encoded it. */
  private bodyBytes(body: Body | undefined, encoding: ContentEncoding | undefined, echoes?: Echoes): Buffer {
    let bytes = restoreBody(decodeBody(body), body, this.fromPlaceholders);
    if (echoes && body && ('json' in body || 'text' in body)) {
      const json = 'json' in body || parsesAsJson(body.text);
      bytes = Buffer.from(restoreEchoes(bytes.toString('utf8'), echoes, json));
    }
    return encoding && bytes.byteLength > 0 ? encodeContent(bytes, encoding) : bytes;
  }

  /**
   * Yields the recorded events as SSE bytes, each once its cause has been
   * replayed (and, when timed, its recorded delay has passed). Events already
   * due go out together in one chunk.
   */
  private async *frames(entry: Entry, events: SseItem[], servedAt: number, signal: AbortSignal, echoes?: Echoes): AsyncGenerator<Buffer> {
    let batch = '';
    const own = entry.interaction.seq;
    const ownStart = entry.interaction.timing.start;
    // Events that followed only this stream's own request keep their distance from when it was served.
    const { causes, keys, end: endCause } = (entry.causes ??= streamCauses(entry.clock.cassette, entry.interaction, events));
    // A reframing fuzzer writes canonical SSE of its own, and values given back differ per request: nothing to keep.
    const wire = this.options.reframe || echoes ? undefined : (entry.wire ??= new Array(events.length));
    const untilDue = (item: SseItem, cause: number) =>
      cause > own
        ? this.delayFor(entry, cause, item.at)
        : this.timing.kind === 'instant'
          ? 0
          : servedAt + this.timing.factor * (item.at - ownStart) - performance.now();
    for (const [n, item] of events.entries()) {
      const cause = causes[n] ?? item.after;
      // The client has sent this stream's own request, so what followed it alone is due.
      const gated = cause > own && !entry.clock.reached(cause, keys);
      const wait = gated ? 0 : untilDue(item, cause);
      if ((gated || wait > 0) && batch) {
        yield Buffer.from(batch);
        batch = '';
      }
      if (gated) await entry.clock.waitReached(cause, signal, keys);
      const delay = gated ? untilDue(item, cause) : wait;
      if (delay > 0) await abortableSleep(delay, signal);
      batch += wire ? (wire[n] ??= this.encode(item)) : this.encode(item, echoes);
    }
    if (batch) yield Buffer.from(batch);
    const stream = entry.interaction.response?.stream;
    // The server's end waits for the requests that came before it, as its events do (decision 0008): an MCP
    // session's standalone stream ends when the client deletes the session, not once its last event is out.
    const ends = stream?.end === 'server-closed' || stream?.end === 'broken';
    if (ends && endCause > own && !entry.clock.reached(endCause, keys)) await entry.clock.waitReached(endCause, signal, keys);
    // Timed, the server's end (a close or a break) keeps its recorded distance too; a client-closed stream stays open anyway.
    const end = entry.interaction.timing.end;
    if (this.timing.kind !== 'instant' && stream && stream.end !== 'client-closed' && end !== undefined) {
      const wait = servedAt + this.timing.factor * (end - ownStart) - performance.now();
      if (wait > 0) await abortableSleep(wait, signal);
    }
  }

  private encode(item: SseItem, echoes?: Echoes): string {
    const restore = (text: string) => {
      const own = this.fromPlaceholders(text);
      return echoes && item.data !== undefined ? restoreEchoes(own, echoes, parsesAsJson(item.data)) : own;
    };
    // The recorded wire text, unless a fuzzer reframes the stream (it writes canonical SSE and cuts it).
    if (item.raw !== undefined && !this.options.reframe) return restore(item.raw);
    if (item.comment !== undefined) return serializeSseFrame({ kind: 'comment', comment: item.comment });
    const { at: _at, after: _after, comment: _c, data, raw: _raw, ...fields } = item;
    return serializeSseFrame({ kind: 'event', ...fields, ...(data === undefined ? {} : { data: restore(data) }) });
  }

  /** Recorded interactions the client never asked for (reads skipped for a later due answer are not counted). */
  unused(): EntryInfo[] {
    this.indexAll();
    const out: EntryInfo[] = [];
    for (const group of this.groups.values()) {
      const read = !isMutating(group[0]?.interaction.request.method ?? 'GET');
      if (read && group.some((e) => e.served)) continue;
      for (const e of group) if (!e.served) out.push({ cassette: e.name, seq: e.interaction.seq });
    }
    return out.sort((a, b) => (a.cassette < b.cassette ? -1 : a.cassette > b.cassette ? 1 : a.seq - b.seq));
  }
}
