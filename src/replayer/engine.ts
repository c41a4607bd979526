import { currentFolders, folderRestorer, placeholderMapper, type WsSession } from '../cassette/index.js';
import { type AnswerText, recordedAnswer } from './answer.js';
import type { Entry, HttpAnswer, NamedCassette, ReplayAnswer, ReplayOptions, UnusedEntry } from './answer-types.js';
import { AnswerChooser } from './choose.js';
import {
  breakAnswer,
  breakSession,
  type ChosenFault,
  checkedFaults,
  FaultPlan,
  type InjectedFault,
  refusal,
  streamCut,
} from './faults/index.js';
import { echoesFor, LiveRequests } from './live-request.js';
import type { MatchPlaces } from './match-config.js';
import type { ReplayRequest } from './match-request.js';
import { MissReport, unmatchedAnswer } from './misses.js';
import { RouteIndex } from './route-index.js';
import { parseTiming, type TimingMode } from './timing.js';
import { type UsageFile, usageOf } from './usage.js';
import { WsReplaySession, type WsSessionLike, WsSessionPool, type WsTexts } from './ws/index.js';

export {
  type BodyEnd,
  type EntryInfo,
  type HttpAnswer,
  MISSES_KEPT,
  type NamedCassette,
  type ReplayAnswer,
  type ReplayOptions,
  STRICT_MISS_STATUS,
  type UnusedEntry,
} from './answer-types.js';

/**
 * Answers requests from recorded cassettes, independent of any front door:
 * matched by content (route index, live requests), chosen in recorded order
 * (choose.ts), answered with placeholders and echoed values restored (answer.ts).
 */
export class ReplayEngine extends MissReport {
  private readonly index: RouteIndex;
  private readonly chooser: AnswerChooser;
  private readonly live: LiveRequests;
  private readonly text: AnswerText;
  /** Per path with recorded WebSocket sessions, which connection holds which session. */
  private readonly pools = new Map<string, WsSessionPool>();
  private readonly faultPlan: FaultPlan | undefined;
  readonly timing: TimingMode;
  readonly mode: 'strict' | 'lenient';
  readonly maxRequestBody: number | undefined;

  constructor(
    private readonly cassettes: readonly NamedCassette[],
    private readonly options: ReplayOptions = {},
    /** Where the doors' matching settings came from (see `withMatchConfig`): a miss's advice names it. */
    private readonly places?: MatchPlaces,
  ) {
    super();
    this.timing = parseTiming(options.timing);
    this.mode = options.mode ?? 'strict';
    this.maxRequestBody = options.maxRequestBody;
    const folders = options.folders ?? currentFolders();
    this.text = { timing: this.timing, fromPlaceholders: folderRestorer(folders), reframing: !!options.reframe, reframe: options.reframe };
    this.live = new LiveRequests(options, placeholderMapper(folders).text);
    this.index = new RouteIndex(cassettes, options);
    this.chooser = new AnswerChooser(this.timing, options.onExhausted);
    const faults = checkedFaults(options.faults);
    this.faultPlan = faults.length ? new FaultPlan(faults, options.faultSeed, options.onFault) : undefined;
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
    const { content, req, shape, key, group } = this.live.match(live, this.index);
    if (upgrade && group?.[0]?.interaction.response?.websocket) {
      const pool = this.pools.get(key) ?? this.pools.set(key, poolOf(group, this.chooser, this.sessions)).get(key);
      if (pool?.hasFree) {
        const first = group[0];
        const fault = this.faultPlan?.choose(live, { cassette: first.name, seq: first.interaction.seq }, 'websocket');
        return this.sessionAnswer(first, () => pool.connect(), fault);
      }
    }
    const chosen = group && this.chooser.choose(key, group);
    if (!chosen) {
      const answer = unmatchedAnswer(this.index, req, shape, {
        strict: this.mode === 'strict',
        onMiss: this.options.onMiss,
        places: this.places,
      });
      this.recordMiss(answer.error);
      return answer;
    }
    const { entry, advances } = chosen;
    const info = { cassette: entry.name, seq: entry.interaction.seq };
    const socket = upgrade && entry.interaction.response?.websocket;
    const stream = entry.interaction.response?.stream;
    const fault = this.faultPlan?.choose(live, info, socket ? 'websocket' : stream ? 'sse' : 'http');
    // A refusal or a reset before the headers: the server never took the request, so its recording stays for the retry.
    const refused = fault && refusal(fault, info);
    if (refused) {
      this.chooser.unchoose(key, chosen.previous);
      return refused;
    }
    entry.served = true;
    if (advances) this.chooser.reached(entry);
    if (socket) return this.sessionAnswer(entry, () => replaySession(entry, this.sessions), fault);
    const cut = fault && stream ? streamCut(fault.rule, stream.events.length) : undefined;
    const answer = recordedAnswer(entry, this.text, echoesFor(entry, content, req), cut);
    return fault && answer.kind !== 'websocket' ? breakAnswer(answer, fault.rule) : answer;
  }

  /** A recorded WebSocket session for an upgrade, or the fault that breaks it (a status or a reset takes no session). */
  private sessionAnswer(entry: Entry, connect: () => WsSessionLike, fault: ChosenFault | undefined): ReplayAnswer {
    const info = { cassette: entry.name, seq: entry.interaction.seq };
    const refused = fault && refusal(fault, info);
    if (refused) return refused;
    const session = connect();
    return { kind: 'websocket', entry: info, status: 101, session: fault ? breakSession(session, fault.rule) : session };
  }

  /** The faults that fired, latest last (at most `FAULTS_KEPT`): a test asserts that the one it declared did. */
  get injectedFaults(): readonly InjectedFault[] {
    return this.faultPlan?.injected ?? [];
  }

  /** How many faults fired, all told. */
  get faultCount(): number {
    return this.faultPlan?.count ?? 0;
  }

  /** How many times each fault rule fired, by its place in the list. */
  get faultsByRule(): readonly number[] {
    return this.faultPlan?.firedByRule() ?? [];
  }

  /** The request's path as a log line may show it: its secrets replaced, as a recording has them. */
  pathForLog(live: Pick<ReplayRequest, 'path' | 'headers'>): string {
    return this.live.pathForLog(live);
  }

  /** Recorded interactions the client never asked for (reads skipped for a later due answer are not counted). */
  unused(): UnusedEntry[] {
    return this.index.unused();
  }

  /** What this replay used of each cassette file, as `bench prune` reads it (a repeated read served once counts whole). */
  usage(): UsageFile {
    const used = new Map<number, number[]>();
    for (const e of this.index.used()) used.set(e.index, [...(used.get(e.index) ?? []), e.interaction.seq]);
    return usageOf(
      this.cassettes.map((c) => ({ file: c.file, interactions: c.cassette.interactions.length })),
      used,
    );
  }

  /** What a replayed WebSocket session needs: how frames read as recorded text and back, and the timing. */
  private get sessions(): SessionText {
    return { texts: { toRecorded: (t: string) => this.live.frameText(t), toLive: this.text.fromPlaceholders }, timing: this.timing };
  }
}

interface SessionText {
  texts: WsTexts;
  timing: TimingMode;
}

/** A fresh replay of an entry's recorded WebSocket session, for one connection. */
function replaySession(entry: Entry, { texts, timing }: SessionText): WsReplaySession {
  const i = entry.interaction;
  return new WsReplaySession(
    entry.name,
    i.seq,
    i.request.path,
    i.response?.websocket as WsSession,
    entry.clock,
    texts,
    timing,
    i.timing.start,
  );
}

/**
 * A path's recorded sessions: the pool gives a connection the one its own
 * frames were recorded in, among those no other connection holds.
 */
function poolOf(group: Entry[], chooser: AnswerChooser, sessions: SessionText): WsSessionPool {
  const held = (entry: Entry) => (taken: boolean) => {
    entry.served = taken;
    if (taken) chooser.reached(entry);
  };
  const session = (entry: Entry) => entry.interaction.response?.websocket as WsSession;
  return new WsSessionPool(
    group.map((entry) => ({ session: session(entry), replay: () => replaySession(entry, sessions), held: held(entry) })),
  );
}
