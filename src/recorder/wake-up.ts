import { Worker } from 'node:worker_threads';

/**
 * The helper thread keeps the clock: it is told `[id, ms]` and answers `id`
 * once `ms` have passed. A dynamic import, so the same text runs whether the
 * thread is evaluated as CommonJS or, under `--input-type=module`, as ESM.
 */
const CLOCK = `
import('node:worker_threads').then(({ parentPort }) => {
  parentPort.on('message', ([id, ms]) => setTimeout(() => parentPort.postMessage(id), ms));
});
`;

let clock: Worker | undefined;
let broken = false;
let next = 0;
const pending = new Map<number, () => void>();

function thread(): Worker | undefined {
  if (clock || broken) return clock;
  try {
    const worker = new Worker(CLOCK, { eval: true, name: 'tapedeck wake-ups' });
    worker.on('message', (id: number) => {
      const job = pending.get(id);
      if (!job) return;
      pending.delete(id);
      if (pending.size === 0) worker.unref();
      job();
    });
    worker.on('error', () => fallBack(worker));
    worker.on('exit', () => fallBack(worker));
    // After the listeners: adding one holds the process open again. Only a pending wake-up should.
    worker.unref();
    clock = worker;
  } catch {
    broken = true;
  }
  return clock;
}

/** The helper thread is gone: what it was timing is run now, and later wake-ups use the main thread's timers. */
function fallBack(worker: Worker): void {
  if (clock !== worker) return;
  clock = undefined;
  broken = true;
  const jobs = [...pending.values()];
  pending.clear();
  for (const job of jobs) job();
}

/**
 * Starts the helper thread ahead of need and resolves once it has answered:
 * its start (some 20-40 ms of a core) then falls before a proxy listens, not
 * on its first request.
 */
export function prepareWakeUps(): Promise<void> {
  return new Promise((resolve) => {
    wakeAfter(0, resolve);
  });
}

/**
 * Runs `job` after `ms`, timed on a helper thread; returns what cancels it.
 * For batched work that runs while traffic flows (the journal's flush, the
 * stream parse): a timer on the main thread makes each of its event loop's
 * waits a timed one, and on a virtual machine a timed wait that a packet cuts
 * short added about 10 µs to every forwarded SSE event (a 10 ms timer; 4 µs at
 * 20 ms). The pending wake-up holds the process open, as a timer would.
 */
export function wakeAfter(ms: number, job: () => void): () => void {
  const worker = thread();
  if (!worker) {
    const timer = setTimeout(job, ms);
    return () => clearTimeout(timer);
  }
  const id = ++next;
  pending.set(id, job);
  if (pending.size === 1) worker.ref();
  worker.postMessage([id, ms]);
  return () => {
    if (pending.delete(id) && pending.size === 0) worker.unref();
  };
}
