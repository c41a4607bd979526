import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RedactionConfig } from '../cassette/index.js';
import { journalPath } from './journal/index.js';
import { startRecordingProxy } from './recording-proxy.js';

export interface RecordToFileOptions {
  /** The server the proxy forwards to. */
  target: string;
  labels: Record<string, string>;
  /** Where the cassette goes (written atomically, redacted, folders made portable; journaled beside it until then). */
  file: string;
  /** How meta describes the target (the default is its URL). */
  describedAs?: string | undefined;
  packs: string[];
  redact?: RedactionConfig | undefined;
  /** Aborted: the proxy stops, no cassette is written (the journal is kept), and the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/** Runs `drive` against a fresh recording proxy in front of the target, then writes what it recorded. */
export async function recordToFile<T>(options: RecordToFileOptions, drive: (proxyUrl: string) => Promise<T>): Promise<T> {
  await mkdir(dirname(options.file), { recursive: true });
  const proxy = await startRecordingProxy({
    target: options.target,
    labels: options.labels,
    describedAs: options.describedAs,
    packs: options.packs,
    journal: { file: journalPath(options.file), redact: options.redact },
  });
  const signal = options.signal;
  let out: T;
  try {
    out = await (signal ? abortable(drive(proxy.url), signal) : drive(proxy.url));
  } finally {
    // An abandoned recording writes no cassette; its journal stays for `bench recover`.
    if (signal?.aborted) await proxy.close();
    else {
      await proxy.save(options.file, options.redact);
      await proxy.discardJournal();
    }
  }
  return out;
}

/** The work's outcome, or the signal's reason as soon as it aborts (the work's own later failure is dropped). */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
