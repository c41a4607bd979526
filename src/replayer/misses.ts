import { MISSES_KEPT, type ReplayAnswer, STRICT_MISS_STATUS } from './answer-types.js';
import { bodyDistance, differences } from './differences.js';
import { type NearMiss, UnmatchedRequestError } from './errors.js';
import type { MatchPlaces } from './match-config.js';
import type { ReplayRequest, RequestShape } from './match-request.js';
import type { RouteIndex } from './route-index.js';

/** The requests that matched nothing: the latest few kept for a report, all of them counted (what an engine reports). */
export class MissReport {
  /** The latest unmatched requests (at most `MISSES_KEPT`), for front doors that report at the end. */
  readonly misses: UnmatchedRequestError[] = [];
  /** How many requests and frames matched nothing, all told; `misses` keeps only the latest `MISSES_KEPT`. */
  missCount = 0;

  /** Counts a miss and keeps it among the latest few: a client that misses forever must not grow memory forever. */
  recordMiss(error: UnmatchedRequestError): void {
    this.missCount += 1;
    this.misses.push(error);
    if (this.misses.length > MISSES_KEPT) this.misses.shift();
  }

  /** Counts the miss an answer reports, and gives the answer back. */
  protected missed<A extends { error: UnmatchedRequestError }>(answer: A): A {
    this.recordMiss(answer.error);
    return answer;
  }

  /** Takes back a miss a front door answered another way (`record: 'missing'` sends it to the real server). */
  withdrawMiss(error: UnmatchedRequestError): void {
    const at = this.misses.lastIndexOf(error);
    if (at === -1) return;
    this.misses.splice(at, 1);
    this.missCount -= 1;
  }
}

/** How a miss is answered: strict or not, the status of a strict one, and where its advice says to change matching. */
export interface MissHow {
  strict: boolean;
  onMiss: number | undefined;
  places?: MatchPlaces | undefined;
}

/**
 * How near a recorded request is: the places it differs in, and, where only its body differs, in how many
 * fields (a conversation's second turn is nearer to the recorded second turn than to the first).
 */
function nearness<E>(recorded: RequestShape, live: RequestShape, e: E) {
  const differs = differences(recorded, live);
  const body = differs.every((d) => d.path.startsWith('body')) ? bodyDistance(recorded, live) : 0;
  return { e, differs, body };
}

/** The answer to a request that matched nothing: the three nearest recorded requests and how each differs. */
export function unmatchedAnswer(
  index: RouteIndex,
  req: ReplayRequest,
  shape: RequestShape,
  how: MissHow,
): Extract<ReplayAnswer, { kind: 'unmatched' }> {
  index.indexAll();
  const nearest: NearMiss[] = index.entries
    .map((e) => nearness(e.shape as RequestShape, shape, e))
    .sort((a, b) => a.differs.length - b.differs.length || a.body - b.body || a.e.interaction.seq - b.e.interaction.seq)
    .slice(0, 3)
    .map(({ e, differs }) => ({
      seq: e.interaction.seq,
      cassette: e.name,
      method: e.interaction.request.method,
      path: e.interaction.request.path,
      differs,
    }));
  const error = new UnmatchedRequestError(req.method.toUpperCase(), req.path, nearest, how.places);
  const { strict } = how;
  const body = Buffer.from(
    JSON.stringify({
      error: {
        code: strict ? 'tapedeck_unmatched_request' : 'tapedeck_no_recording',
        message: error.message,
        nearest: nearest.map((n) => ({ cassette: n.cassette, seq: n.seq, differs: n.differs.slice(0, 3) })),
      },
    }),
  );
  return { kind: 'unmatched', error, strict, status: strict ? (how.onMiss ?? STRICT_MISS_STATUS) : 404, body };
}
