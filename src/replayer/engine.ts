import { currentFolders, folderRestorer, placeholderMapper, type WsSession } from '../cassette/index.js';
import { type AnswerText, recordedAnswer } from './answer.js';
import type { Entry, HttpAnswer, NamedCassette, ReplayAnswer, ReplayOptions, UnusedEntry } from './answer-types.js';
import { AnswerChooser } from './choose.js';
import { FaultReport } from './fault-report.js';
import { breakAnswer, breakSession, type ChosenFault, refusal, type StreamCut, streamCut } from './faults/index.js';
import { echoesFor, LiveRequests } from './live-request.js';
import type { MatchPlaces } from './match-config.js';
import type { ReplayRequest } from './match-request.js';
import { type MissHow, unmatchedAnswer } from './misses.js';
import { RouteIndex } from './route-index.js';
import { parseTiming, type TimingMode } from './timing.js';
import { type UsageFile, unusedEntries, usageOf, usedEntries } from './usage.js';
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
export class ReplayEngine extends FaultReport {
  private readonly index: RouteIndex;
  private readonly chooser: AnswerChooser;
  private readonly live: LiveRequests;
  private readonly text: AnswerText;
  private readonly sessions: SessionText;
  private readonly missHow: MissHow;
  private readonly pools = new Map<string, WsSessionPool>(); // per path: which connection holds which recorded session
  readonly timing: TimingMode;
  readonly mode: 'strict' | 'lenient';
  readonly maxRequestBody: number | undefined;

  constructor(
    private readonly cassettes: readonly NamedCassette[],
    options: ReplayOptions = {},
    /** Where the doors' matching settings came from (see `withMatchConfig`): a miss's advice names it. */
    places?: MatchPlaces,
  ) {
    super(options);
    this.timing = parseTiming(options.timing);
    this.mode = options.mode ?? 'strict';
    this.maxRequestBody = options.maxRequestBody;
    const folders = options.folders ?? currentFolders();
    this.text = { timing: this.timing, fromPlaceholders: folderRestorer(folders), reframing: !!options.reframe, reframe: options.reframe };
    const live = (this.live = new LiveRequests(options, placeholderMapper(folders).text));
    this.sessions = { texts: { toRecorded: (t) => live.frameText(t), toLive: this.text.fromPlaceholders }, timing: this.timing };
    this.index = new RouteIndex(cassettes, options);
    this.chooser = new AnswerChooser(this.timing, options.onExhausted);
    this.missHow = { strict: this.mode === 'strict', onMiss: options.onMiss, places };
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
    const matched = this.live.match(live, this.index);
    const { key, group } = matched;
    if (upgrade && group?.[0]?.interaction.response?.websocket) {
      const pool = this.pools.get(key) ?? this.pools.set(key, poolOf(group, this.chooser, this.sessions)).get(key);
      if (pool?.hasFree) return sessionAnswer(group[0], () => pool.connect(), this.faultFor(live, group[0], 'websocket'));
    }
    const chosen = group && this.chooser.choose(key, group);
    if (!chosen) return this.missed(unmatchedAnswer(this.index, matched.req, matched.shape, this.missHow));
    const { entry, advances } = chosen;
    const socket = upgrade && !!entry.interaction.response?.websocket;
    const fault = this.faultFor(live, entry, socket ? 'websocket' : entry.interaction.response?.stream ? 'sse' : 'http');
    // A refusal or a reset before the headers: the server never took the request, so its recording stays for the retry.
    const refused = fault && refusal(fault, { cassette: entry.name, seq: entry.interaction.seq });
    if (refused) {
      this.chooser.unchoose(key, chosen.previous);
      return refused;
    }
    entry.served = true;
    if (advances) this.chooser.reached(entry);
    if (socket) return sessionAnswer(entry, () => replaySession(entry, this.sessions), fault);
    return brokenAnswer(entry, fault, (cut) => recordedAnswer(entry, this.text, echoesFor(entry, matched), cut));
  }

  /** The request's path as a log line may show it: its secrets replaced, as a recording has them. */
  pathForLog(live: Pick<ReplayRequest, 'path' | 'headers'>): string {
    return this.live.pathForLog(live);
  }

  /** Recorded interactions the client never asked for (reads skipped for a later due answer are not counted). */
  unused(): UnusedEntry[] {
    return unusedEntries([...this.index.allGroups()]);
  }

  /** What this replay used of each cassette file, as `bench prune` reads it (a repeated read served once counts whole). */
  usage(): UsageFile {
    return usageOf(this.cassettes, usedEntries([...this.index.allGroups()]));
  }
}

/** The recorded answer, broken as the fault chosen for it says (a stream's events cut before it is made). */
function brokenAnswer(entry: Entry, fault: ChosenFault | undefined, answer: (cut?: StreamCut) => ReplayAnswer): ReplayAnswer {
  const stream = entry.interaction.response?.stream;
  const made = answer(fault && stream ? streamCut(fault.rule, stream.events.length) : undefined);
  return fault && made.kind !== 'websocket' ? breakAnswer(made, fault.rule) : made;
}

/** A recorded WebSocket session for an upgrade, or the fault that breaks it (a status or a reset takes no session). */
function sessionAnswer(entry: Entry, connect: () => WsSessionLike, fault: ChosenFault | undefined): ReplayAnswer {
  const info = { cassette: entry.name, seq: entry.interaction.seq };
  const refused = fault && refusal(fault, info);
  if (refused) return refused;
  const session = connect();
  return { kind: 'websocket', entry: info, status: 101, session: fault ? breakSession(session, fault.rule) : session };
}

/** What a replayed WebSocket session needs: how frames read as recorded text and back, and the timing. */
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
