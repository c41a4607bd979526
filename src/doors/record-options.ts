import type { Cassette, RedactionConfig } from '../cassette/index.js';
import { loadRedactionConfigSync } from '../config.js';
import { UsageError } from '../errors.js';
import type { NamedCassette, ReplayOptions } from '../replayer/index.js';

/**
 * How a door records, in `useCassette`'s words: `replay` (the default) only answers from the cassettes;
 * `missing` answers what they hold and records the rest from the real server; `record` records every request
 * (the cassettes are not read).
 */
export type DoorRecordMode = 'replay' | 'missing' | 'record';

/** What a door that records is told besides its replay options. */
export interface DoorRecordOptions {
  record?: DoorRecordMode;
  /** The cassette file the recording is saved to (default: the file of the one cassette in the set). */
  saveTo?: string;
}

/** What a door that records does: its mode, the file it saves to, and the cassette it adds to (`missing`). */
export interface RecordPlan {
  mode: 'missing' | 'record';
  file: string;
  base: Cassette | undefined;
}

/** Where a door's recording goes, checked before any request is sent; none when it only replays. */
export function recordPlan(door: string, set: readonly NamedCassette[], options: DoorRecordOptions): RecordPlan | undefined {
  const mode = options.record ?? 'replay';
  if (mode === 'replay') return undefined;
  if (mode !== 'missing' && mode !== 'record')
    throw new UsageError(`${door} record: '${String(mode)}' is not a mode; use 'replay', 'missing' or 'record'`);
  const only = set.length === 1 ? set[0] : undefined;
  const file = options.saveTo ?? only?.file;
  if (!file)
    throw new UsageError(
      `${door} record: '${mode}' needs saveTo, the cassette file to write (or a set of one cassette loaded from a file)`,
    );
  if (mode === 'record') return { mode, file, base: undefined };
  // What is recorded is added to the cassette it was missing from: one, and the one the file holds.
  if (!only || (only.file !== undefined && only.file !== file))
    throw new UsageError(`${door} record: 'missing' adds to one cassette: pass a set of one cassette loaded from ${file}`);
  return { mode, file, base: only.cassette };
}

/**
 * What a door's recording redacts: `redact` passed in code, else the `redact` section of the config the door
 * matches by (`config`, or the nearest tapedeck.config.json), as `bench proxy` reads it; `config: false` reads no file.
 */
export function recordingRedaction(options: Pick<ReplayOptions, 'redact' | 'config'>): RedactionConfig | undefined {
  if (options.redact) return options.redact;
  return options.config === false ? undefined : loadRedactionConfigSync(options.config);
}
