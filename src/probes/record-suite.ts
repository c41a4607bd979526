import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RedactionConfig } from '../cassette/index.js';
import { UsageError } from '../errors.js';
import { recordToFile } from '../recorder/index.js';
import { type Manifest, type ProbeResult, writeManifest } from './manifest.js';
import type { SuiteObservation } from './observation.js';
import { reconcile, type Verdict } from './verdict.js';

/** Ceilings for one probe's waits: against a simulator or a replay, and against a live server. */
export const SIMULATED_TURN_MS = 10_000;
export const LIVE_TURN_MS = 120_000;

/** Options every suite recording takes. */
export interface SuiteOptions {
  /** A live server; without it the suite's embedded simulator runs. */
  server?: string | undefined;
  probes?: readonly string[] | undefined;
  outDir: string;
  /** The folder under `outDir` (default: the suite's own), e.g. to keep a real server's recordings beside the simulator's. */
  folder?: string | undefined;
  /** How the manifest and meta describe a live server (default: its URL). */
  described?: string | undefined;
  seed?: number;
  redact?: RedactionConfig | undefined;
  onProgress?: ((event: SuiteProgress) => void) | undefined;
}

/** Runs a probe; trouble talking to the server is UNKNOWN with the reason, never a capability verdict. */
export async function observeSafely(run: () => Promise<SuiteObservation>): Promise<{ observed: Verdict; reason: string }> {
  try {
    const { observed, note } = await run();
    return { observed, reason: note };
  } catch (err) {
    return { observed: 'UNKNOWN', reason: `probe error: ${(err as Error).message}` };
  }
}

export type SuiteProgress = { kind: 'start'; probe: string } | { kind: 'done'; result: ProbeResult; seconds: number };

/** A suite whose probes are all expected to work (declared SUPPORTED) and each record one cassette. */
export interface SuiteRecording<P extends { name: string; priority: 'P0' | 'P1' }> {
  suite: NonNullable<Manifest['suite']>;
  /** The folder under `outDir`, also the manifest's harness name. */
  folder: string;
  outDir: string;
  /** The server the proxy forwards to (http:// or https://). */
  target: string;
  /** How meta and the manifest describe the target. */
  described: string;
  packs: string[];
  redact?: RedactionConfig | undefined;
  probes: readonly P[];
  /** Runs one probe against the recording proxy's URL. */
  observe: (probe: P, proxyUrl: string) => Promise<{ observed: Verdict; reason: string }>;
  onProgress?: ((event: SuiteProgress) => void) | undefined;
}

const DECLARED: Verdict = 'SUPPORTED';

/** The probes named in `names` (all when absent), or a usage error naming the known ones. */
export function selectNamed<P extends { name: string }>(
  all: readonly P[],
  names: readonly string[] | undefined,
  what: string,
): readonly P[] {
  if (!names) return all;
  const known = all.map((p) => p.name);
  for (const n of names)
    if (!known.includes(n)) throw new UsageError(`unknown ${what} probe ${JSON.stringify(n)}; probes: ${known.join(', ')}`);
  return all.filter((p) => names.includes(p.name));
}

/**
 * Records each probe through its own proxy into `<outDir>/<folder>/<probe>.yaml`, then writes the manifest.
 * `given` are the caller's overrides of the suite's folder and of how its target is described.
 */
export async function recordSuite<P extends { name: string; priority: 'P0' | 'P1' }>(
  suite: SuiteRecording<P>,
  given: Pick<SuiteOptions, 'folder' | 'described'> = {},
): Promise<Manifest> {
  if (given.folder !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(given.folder))
    throw new UsageError(
      `--folder ${JSON.stringify(given.folder)}: give a plain folder name (letters, digits, . _ -), created under --out`,
    );
  const s = { ...suite, folder: given.folder ?? suite.folder, described: given.described ?? suite.described };
  const dir = resolve(s.outDir, s.folder);
  const results: ProbeResult[] = [];
  for (const probe of s.probes) {
    s.onProgress?.({ kind: 'start', probe: probe.name });
    const started = performance.now();
    const file = `${probe.name}.yaml`;
    const { observed, reason } = await recordToFile(
      {
        target: s.target,
        labels: { harness: s.folder, probe: probe.name },
        file: join(dir, file),
        describedAs: s.described,
        packs: s.packs,
        redact: s.redact,
      },
      (url) => s.observe(probe, url),
    );
    const result = {
      probe: probe.name,
      priority: probe.priority,
      declared: DECLARED,
      observed,
      verdict: reconcile(observed, DECLARED),
      reason,
      cassette: file,
    } as ProbeResult;
    results.push(result);
    s.onProgress?.({ kind: 'done', result, seconds: (performance.now() - started) / 1000 });
  }
  const manifest: Manifest = {
    version: 1,
    suite: s.suite,
    harness: s.folder,
    target: s.described,
    recordedAt: new Date().toISOString(),
    probes: results,
  };
  await writeManifest(join(dir, 'manifest.yaml'), manifest);
  return manifest;
}
