import type { Pace } from '../journal/sink.js';

/** How long the recording thread works in one go before it steps off its core. */
const SLICE_MS = 0.2;

/**
 * Paces the recording thread's work. On two cores, a thread that keeps a core busy makes the client or the server
 * under test, once woken, wait for that core: Linux's scheduler lets even a nice-10 thread run on for a while. So
 * the thread works in slices of about 0.2 ms and steps off its core between them. Its work is never urgent: the
 * journal's window is 20 ms, and the save waits only for what is left.
 */
export class Pacer implements Pace {
  private until = 0;
  private readonly cell = new Int32Array(new SharedArrayBuffer(4));

  /** A batch begins: its first slice starts now, after the thread has waited for it. */
  start(): void {
    this.until = performance.now() + SLICE_MS;
  }

  /** Between two pieces of work: once the slice is used up, a moment off the core, then a new slice. */
  pause(): void {
    if (performance.now() < this.until) return;
    // The shortest wait there is; the kernel's timer slack makes it tens of microseconds, time enough for a woken
    // thread to take the core.
    Atomics.wait(this.cell, 0, 0, 0.001);
    this.start();
  }
}
