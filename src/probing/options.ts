import type { RedactionConfig } from '../cassette/index.js';
import type { Pace, SimulatorOptions } from '../families/index.js';
import type { ProbeResult } from '../manifest/index.js';

/** Options every family recording takes. */
export interface RecordFamilyOptions {
  /** A live server; without it the family's embedded simulator runs. */
  server?: string | undefined;
  apiKey?: string | undefined;
  /** The variant to record (`--harness`), for families that have them. */
  variant?: string | undefined;
  probes?: readonly string[] | undefined;
  /** What `--input` gave the probes (parsed), for families whose probes take inputs. */
  inputs?: unknown;
  outDir: string;
  /** The folder under `outDir` (default: the family's own), e.g. to keep a real server's recordings beside the simulator's. */
  folder?: string | undefined;
  /** How the manifest and meta describe a live server (default: its URL). */
  described?: string | undefined;
  simulator?: SimulatorOptions | undefined;
  /** How long probes wait (default: simulated for the embedded simulator, live for a server). */
  pace?: Pace | undefined;
  /** A ceiling for one turn, below the pace's (see PlanContext). */
  turnMs?: number | undefined;
  redact?: RedactionConfig | undefined;
  onProgress?: ((event: RecordProgress) => void) | undefined;
  /** Aborted: the probe under way is abandoned, servers started are stopped, the staging folder removed (RecordingStopped). */
  signal?: AbortSignal | undefined;
}

export type RecordProgress =
  | { kind: 'start'; probe: string }
  | { kind: 'done'; result: ProbeResult; seconds: number }
  /** The files moved into place, and those left as they were (the same but for timings). */
  | { kind: 'saved'; written: string[]; unchanged: string[] }
  /** Stopped before the end: what was recorded (cassettes, the journal of the probe under way), left in the staging folder. */
  | { kind: 'kept'; folder: string; files: string[] };
