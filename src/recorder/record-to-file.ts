import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RedactionConfig } from '../cassette/index.js';
import { journalPath } from './journal.js';
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
  let out: T;
  try {
    out = await drive(proxy.url);
  } finally {
    await proxy.save(options.file, options.redact);
    await proxy.discardJournal();
  }
  return out;
}
