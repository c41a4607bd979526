import type { Interaction, PreparedInteraction } from '../cassette/index.js';
import { wakeAfter } from './wake-up.js';

/** How long one turn of the event loop may spend preparing, so forwarding never waits behind it for long. */
const SLICE_MS = 2;
/** How long settled exchanges gather before a round of preparing starts. */
const GATHER_MS = 20;

/**
 * Prepares each settled exchange for the save while the recording goes on, a
 * few at a time between the proxy's own work, so stopping a long recording
 * costs about the time it takes to write the file (decision 0012). An
 * exchange that changes after it settled is left for the save to render.
 */
export class SaveAhead {
  private queue: Interaction[] = [];
  private head = 0;
  private readonly ready = new Map<Interaction, PreparedInteraction>();
  private readonly unsettled = new WeakSet<Interaction>();
  private scheduled = false;
  private stopped = false;

  constructor(private readonly prepare: (i: Interaction) => PreparedInteraction) {}

  settled(i: Interaction): void {
    if (this.stopped || this.unsettled.has(i)) return;
    this.queue.push(i);
    if (!this.scheduled) {
      this.scheduled = true;
      // Gathered for a moment, like the journal, so the work falls on a few requests' tails, not on every median.
      wakeAfter(GATHER_MS, () => this.drain());
    }
  }

  changed(i: Interaction): void {
    this.unsettled.add(i);
    this.ready.delete(i);
  }

  /** What was prepared for this exchange, if it still holds. */
  get(i: Interaction): PreparedInteraction | undefined {
    return this.ready.get(i);
  }

  /** No more preparing: the save is about to start, and work now would only compete with it. */
  stop(): void {
    this.stopped = true;
    this.queue = [];
    this.head = 0;
  }

  private drain(): void {
    this.scheduled = false;
    const until = performance.now() + SLICE_MS;
    while (this.head < this.queue.length && !this.stopped) {
      const i = this.queue[this.head++] as Interaction;
      if (!this.unsettled.has(i)) {
        try {
          this.ready.set(i, this.prepare(i));
        } catch {
          // What cannot be prepared is rendered by the save, which reports it there.
        }
      }
      if (performance.now() >= until) break;
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (!this.stopped) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }
}
