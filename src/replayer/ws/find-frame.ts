import { payloadFromWire, payloadOf, type WsFrame, type WsPayload, type WsSession } from '../../cassette/index.js';
import { firstDifference } from '../differences.js';
import { type NearMiss, UnmatchedRequestError } from '../errors.js';
import { equalModuloIssued, type IssuedNames, type IssuedValues } from '../issued-values.js';
import { stableKey } from '../match-request.js';
import { comparable } from './rpc.js';

/** A live client frame, the recorded ones it was tried against, the one it is (if any) and the id swaps that takes. */
export interface FoundFrame {
  live: WsPayload;
  candidates: (readonly [WsFrame, number])[];
  hit: readonly [WsFrame, number] | undefined;
  swaps: Map<string, string>;
}

/** What a search needs of its session: the recorded frames, and how live text reads as recorded text. */
export interface FrameSearch {
  session: WsSession;
  /** Live text as recorded text would read: secrets and this machine's folders as placeholders. */
  toRecorded(text: string): string;
  /** The recorded server frames' JSON, as one text (what the recorded server handed out). */
  serverText(): string;
}

/** The search over a session's recorded frames, its server's text read once and only when needed. */
export function frameSearch(session: WsSession, toRecorded: (text: string) => string): FrameSearch {
  let serverText: string | undefined;
  const json = () => session.frames.filter((f) => f.from === 'server' && f.json !== undefined).map((f) => JSON.stringify(f.json));
  return { session, toRecorded, serverText: () => (serverText ??= json().join('\n')) };
}

/**
 * Whether a fresh replay of a session would match every one of these client
 * frames in turn, for a connection that was sent `sent`: the names that would
 * take if so, else undefined (nothing is consumed or renamed).
 */
export function acceptsAllFrames(
  search: FrameSearch,
  frames: readonly { data: Buffer; binary: boolean }[],
  sent: readonly string[],
  names: IssuedNames,
): IssuedNames | undefined {
  const consumed = new Set<number>();
  const trial = names.clone();
  for (const frame of frames) {
    const found = findClientFrame(search, frame, consumed, trial, sent);
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
export function findClientFrame(
  search: FrameSearch,
  frame: { data: Buffer; binary: boolean },
  consumed: ReadonlySet<number>,
  names: IssuedNames,
  sent: readonly string[],
): FoundFrame {
  const none = new Map<string, string>();
  const { data, binary } = frame;
  const text = binary ? '' : names.toRecorded(search.toRecorded(data.toString('utf8')));
  const live = payloadFromWire(binary ? data : Buffer.from(text), binary);
  const want = stableKey(comparable(live));
  const candidates = search.session.frames.flatMap((f, i) =>
    f.from === 'client' && !consumed.has(i) && payloadOf(f) ? [[f, i] as const] : [],
  );
  const hit = candidates.find(([f]) => stableKey(comparable(payloadOf(f) as WsPayload)) === want);
  if (hit || !('json' in live)) return { live, candidates, hit, swaps: none };
  const serverText = search.serverText();
  const issued: IssuedValues = {
    sentLive: (v) => sent.some((t) => t.includes(names.live(v))),
    sentRecorded: (v) => serverText.includes(v),
  };
  const liveJson = (comparable(live) as { json: unknown }).json;
  for (const candidate of candidates) {
    const recorded = comparable(payloadOf(candidate[0]) as WsPayload) as WsPayload;
    const swaps = new Map<string, string>();
    if ('json' in recorded && equalModuloIssued(liveJson, recorded.json, issued, swaps)) return { live, candidates, hit: candidate, swaps };
  }
  return { live, candidates, hit: undefined, swaps: none };
}

/** The miss a live frame that matched nothing is reported as, with the nearest recorded frames. */
export function unmatchedFrame(found: FoundFrame, where: { cassette: string; path: string; seq: number }): UnmatchedRequestError {
  const { live, candidates } = found;
  const nearest: NearMiss[] = candidates
    .map(([f, i]) => ({ i, f, d: firstDifference(comparable(payloadOf(f) as WsPayload), comparable(live), 'frame') }))
    .slice(0, 3)
    .map(({ f, i, d }) => ({
      seq: f.seq as number,
      cassette: where.cassette,
      method: 'WS',
      path: `${where.path} session #${where.seq} frame ${i}`,
      differs: d ? [d] : [],
    }));
  const preview = JSON.stringify('json' in live ? live.json : 'text' in live ? live.text : '(binary)').slice(0, 60);
  return new UnmatchedRequestError('WS', `${where.path} frame ${preview}`, nearest);
}
