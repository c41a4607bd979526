import { performance } from 'node:perf_hooks';
import type { Entry, ReplayOptions } from './answer-types.js';
import { isMutating } from './match-request.js';
import type { TimingMode } from './timing.js';

/** Milliseconds still to wait so that `recordedAt` keeps its recorded distance from request `anchorSeq`. */
export function delayFor(timing: TimingMode, entry: Entry, anchorSeq: number, recordedAt: number): number {
  if (timing.kind === 'instant') return 0;
  const now = performance.now();
  const reachedAt = entry.clock.reachedAt(anchorSeq) ?? now;
  const anchoredAt = entry.clock.interaction(anchorSeq)?.timing.start ?? recordedAt;
  return reachedAt + timing.factor * (recordedAt - anchoredAt) - now;
}

/**
 * Which recorded answer each request of a group gets. Among identical
 * requests a state-changing one takes the next recorded answer, a read takes
 * the latest answer that is due (its preceding state changes replayed), never
 * one out of order and never one ahead.
 */
export class AnswerChooser {
  private readonly cursors = new Map<string, number>();
  /** When this client first got each polled group's first answer (timed replay of polls in order). */
  private readonly pollStarts = new Map<string, number>();
  /** The latest cassette of the set the client has entered. */
  current = 0;

  constructor(
    private readonly timing: TimingMode,
    private readonly onExhausted: ReplayOptions['onExhausted'],
  ) {}

  /**
   * The answer for the next request of a group, and whether serving it moves
   * the client along the timeline (a fallback answer to an early read does not).
   */
  choose(key: string, group: Entry[]): { entry: Entry; advances: boolean; previous: number } | undefined {
    const cursor = this.cursors.get(key) ?? -1;
    let next = -1;
    let advances = true;
    // A WebSocket session is a conversation of its own: each new connection takes the next one, as a write takes its answer.
    if (isMutating(group[0]?.interaction.request.method ?? 'GET') || group[0]?.interaction.response?.websocket) {
      next = cursor + 1 < group.length ? cursor + 1 : -1;
    } else {
      for (let i = group.length - 1; i > cursor; i--) {
        if (isDue(this.timing, this.current, group[i] as Entry)) {
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
      if (this.onExhausted === 'error' || cursor === -1) return undefined;
      return { entry: group[cursor] as Entry, advances: false, previous: cursor };
    }
    this.cursors.set(key, next);
    return { entry: group[next] as Entry, advances, previous: cursor };
  }

  /** Takes a choice back (a fault refused the request): the group's next request gets the same answer. */
  unchoose(key: string, previous: number): void {
    if (previous === -1) this.cursors.delete(key);
    else this.cursors.set(key, previous);
  }

  /** The client reached an entry: its cassette's clock moves on, and the set's current cassette with it. */
  reached(entry: Entry): void {
    entry.clock.advance(entry.interaction.seq);
    this.current = Math.max(this.current, entry.index);
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
    const started = this.pollStarts.get(key) ?? now;
    this.pollStarts.set(key, started);
    const elapsed = now - started;
    let next = cursor === -1 ? 0 : -1;
    for (let i = Math.max(cursor + 1, 1); i < group.length; i++) {
      const e = group[i] as Entry;
      if (e.anchor !== 0 || this.timing.factor * (e.interaction.timing.start - first.interaction.timing.start) > elapsed) break;
      next = i;
    }
    return next;
  }
}

/**
 * A recorded read is due once its anchor was replayed and, when timed, its recorded offset from it has passed. A
 * stream is due on its anchor alone: a subscription opens when its client chooses (a restarted harness, sooner than
 * recorded), and its events keep their own times; holding it back served the client the previous stream over.
 */
function isDue(timing: TimingMode, current: number, e: Entry): boolean {
  if (e.index > current || !e.clock.reached(e.anchor)) return false;
  if (e.anchor === 0 || e.interaction.response?.stream) return true;
  return delayFor(timing, e, e.anchor, e.interaction.timing.start) <= 0;
}
