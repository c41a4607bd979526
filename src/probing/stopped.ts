import { TapedeckError } from '../errors.js';
import { abortable } from '../recorder/index.js';

/** A recording stopped before its end (a signal, or the wrapper that started it gone): nothing was moved into place. */
export class RecordingStopped extends TapedeckError {
  constructor(readonly stopCause: string) {
    const by = stopCause === 'parent exited' ? 'the process that started it (npx, a shell) exiting' : stopCause;
    super('stopped', `stopped by ${by} before the recording ended; the folder is as it was`, { exitCode: 130 });
  }
}

/**
 * Waits for `work`, or rejects with RecordingStopped as soon as `signal`
 * aborts; the abandoned work's own failure is then of no interest.
 */
export function unlessStopped<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return abortable(work, signal).catch((err: unknown) => {
    throw signal.aborted && err === signal.reason ? new RecordingStopped(String(signal.reason)) : err;
  });
}
