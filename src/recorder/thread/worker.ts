import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { ThreadReply, ThreadRequest } from './protocol.js';
import { ThreadRecording } from './thread-recording.js';

// This thread's work can wait; the traffic cannot. On Linux a nice value is a thread's own, so this one yields
// its core to the thread that forwards requests (and to the server it talks to) whenever both want it.
try {
  setPriority(10);
} catch {
  // Not allowed here: the thread runs at the process's priority.
}

/**
 * The recording thread: journals and save preparation for every recording of the process, each recording's
 * requests run in the order they came (its own chain), so a write never overtakes the open or the close.
 */
const recordings = new Map<number, { chain: Promise<unknown>; recording: Promise<ThreadRecording> }>();

function answer(request: ThreadRequest): Promise<unknown> {
  if (request.op === 'open') {
    const recording = ThreadRecording.open(request.file, request.redact, request.folders);
    recordings.set(request.id, { chain: recording, recording });
    return recording;
  }
  const held = recordings.get(request.id);
  if (!held) return Promise.reject(new Error(`no recording #${request.id} on the recording thread`));
  const run = held.chain.then(async () => {
    const r = await held.recording;
    switch (request.op) {
      case 'write':
        return r.write(request.batch);
      case 'close':
        return r.close(request.batch);
      case 'collect':
        recordings.delete(request.id);
        return r.collect();
      case 'forget':
        recordings.delete(request.id);
        return undefined;
    }
  });
  // One failed step (a full disk) must not stop the steps after it from being answered.
  held.chain = run.catch(() => {});
  return run;
}

parentPort?.on('message', (request: ThreadRequest) => {
  answer(request).then(
    (value) => parentPort?.postMessage({ call: request.call, ok: true, ...(request.op === 'collect' ? { value } : {}) } as ThreadReply),
    (err: Error) => parentPort?.postMessage({ call: request.call, ok: false, message: err.message } satisfies ThreadReply),
  );
});
