import { cp, mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { loadCassette } from '../cassette/index.js';
import { choosePacks, type TurnStart } from '../contracts/index.js';
import { UsageError } from '../errors.js';
import {
  DEFAULT_FAMILY,
  type DriftNoise,
  type Family,
  families,
  familyById,
  familyIds,
  familyOfManifest,
  type Pace,
} from '../families/index.js';
import { isCassetteFile, listFiles } from '../fs/list-files.js';
import { loadManifest } from '../manifest/index.js';
import { recordTarget } from '../probing/index.js';
import { describeRerun, rerunCassette } from '../rerun/index.js';
import { compareProfiles, type Finding } from './compare.js';
import type { DriftConfig, Severity } from './config.js';
import { profileFolder } from './profile.js';
import type { DriftReport } from './render.js';

export interface DriftOptions {
  baseline: string;
  /** Re-record against this server into a temporary folder... */
  server?: string | undefined;
  /** ...or compare with this folder of cassettes. */
  candidate?: string | undefined;
  harness?: string | undefined;
  /** A real vendor binary to re-record, started against the mock model (as `bench record --peer`). */
  peer?: string | undefined;
  /** With `server` or `peer`: the family it serves (a `--target` id); folders of other families are left out. */
  target?: string | undefined;
  /** With `server`: the server's key. */
  apiKey?: string | undefined;
  /** With `server`, for recordings no family made (`bench proxy`): headers for every re-sent request (a key). */
  headers?: Record<string, string> | undefined;
  config: DriftConfig;
  failOn?: Severity | undefined;
  /** Replace the baseline with the candidate after reporting. */
  update?: boolean | undefined;
  /** How long re-recorded probes may wait (live by default; simulated when the server is a simulator). */
  pace?: Pace | undefined;
  onProgress?: (line: string) => void;
}

const ORDER: Record<Severity, number> = { breaking: 0, notable: 1, info: 2 };

// A turn may take this many times the baseline's longest recording before drift calls it stalled; never less than the floor.
const CEILING_FACTOR = 10;
const CEILING_FLOOR_MS = 5000;

/**
 * How long a re-recorded turn may wait: ten times the baseline's longest probe
 * (at least 5 s). A server that stops ending turns is then reported within
 * minutes, not after the live ceiling (minutes) for every turn in turn.
 */
export function derivedTurnCeiling(longestBaselineMs: number): number {
  return Math.max(CEILING_FLOOR_MS, Math.ceil(longestBaselineMs * CEILING_FACTOR));
}

async function isDir(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** Harness folders (with a manifest) in a baseline, as [scope name, folder]. */
async function harnessFolders(root: string, only?: string): Promise<[string, string][]> {
  if (!(await isDir(root))) throw new UsageError(`--baseline ${root}: no such folder`);
  if ((await readdir(root)).includes('manifest.yaml')) {
    const h = (await loadManifest(join(root, 'manifest.yaml'))).harness;
    return only && only !== h ? [] : [[h, root]];
  }
  const out: [string, string][] = [];
  for (const name of (await readdir(root)).sort()) {
    const dir = join(root, name);
    if ((await isDir(dir)) && (await readdir(dir)).includes('manifest.yaml') && (!only || name === only)) out.push([name, dir]);
  }
  // A loose folder of cassettes (no manifests) is one scope.
  return out.length > 0 || only ? out : [[basename(root), root]];
}

/** The family that recorded a folder, or none for a loose folder of cassettes. */
async function familyOf(dir: string): Promise<Family | undefined> {
  if (!(await readdir(dir)).includes('manifest.yaml')) return undefined;
  const file = join(dir, 'manifest.yaml');
  return familyOfManifest(await loadManifest(file), file);
}

/**
 * What the family that recorded a folder says drift must not count (a real server's races), if anything; for a folder
 * no family recorded (bench proxy's), what the families whose packs its traffic fits say of a real server.
 */
async function noiseOf(dir: string): Promise<DriftNoise | undefined> {
  if (!(await readdir(dir)).includes('manifest.yaml')) return noiseByTraffic(dir);
  const manifest = await loadManifest(join(dir, 'manifest.yaml'));
  // A simulator's recordings are the same run to run; a real server's (--peer or --server) have races of their own.
  const fromSimulator = manifest.target.startsWith('embedded ');
  return familyOfManifest(manifest).drift?.noise?.(manifest.harness, { fromSimulator });
}

async function noiseByTraffic(dir: string): Promise<DriftNoise | undefined> {
  const chosen = new Set<string>();
  for (const file of await listFiles(dir, isCassetteFile)) for (const c of choosePacks(await loadCassette(file)).chosen) chosen.add(c.pack);
  const noises = families()
    .filter((f) => f.packs.some((p) => chosen.has(p.name)))
    .flatMap((f) => f.drift?.noise?.(basename(dir), { fromSimulator: false }) ?? []);
  if (noises.length === 0) return undefined;
  return {
    unordered: noises.flatMap((n) => n.unordered),
    sometimes: noises.flatMap((n) => n.sometimes),
    runs: noises.flatMap((n) => n.runs ?? []),
    unplaced: Object.assign({}, ...noises.map((n) => n.unplaced ?? {})),
    racedFields: Object.assign({}, ...noises.map((n) => n.racedFields ?? {})),
  };
}

/** Where the recording family's turns start (none said: streams are not cut); a loose folder's, where its packs say. */
async function turnStartsOf(dir: string): Promise<readonly TurnStart[] | undefined> {
  const family = await familyOf(dir);
  return family ? (family.drift?.turnStarts ?? []) : undefined;
}

/** Re-records a family's folder: the baseline's probes against `--server` or `--peer`, into `recorded/<scope>`. */
async function rerecordFolder(suite: Family, scope: string, baseDir: string, recorded: string, longestMs: number, options: DriftOptions) {
  const source = options.server ?? `the real ${suite.id} (${options.peer})`;
  const manifest = await loadManifest(join(baseDir, 'manifest.yaml'));
  const probes = manifest.probes.map((p) => p.probe);
  const turnMs = derivedTurnCeiling(longestMs);
  options.onProgress?.(
    `re-recording ${scope} against ${source}: ${probes.length} probes, a turn waits at most ${(turnMs / 1000).toFixed(1)} s`,
  );
  const startedAt = performance.now();
  let done = 0;
  // Every family records into a folder named like the baseline's (a variant's folder already is), so several compare at once.
  await recordTarget(suite, {
    outDir: recorded,
    probes,
    server: options.server,
    peer: options.peer,
    apiKey: options.apiKey,
    ...(suite.variants ? { variant: manifest.harness, folder: scope } : { folder: scope }),
    ...(options.pace ? { pace: options.pace } : {}),
    turnMs,
    onProgress: (event) => {
      if (event.kind !== 'done') return;
      done++;
      const perProbe = (performance.now() - startedAt) / done / 1000;
      const left = probes.length - done;
      const timedOut = /timed out/.test(event.result.reason) ? ' (timed out)' : '';
      options.onProgress?.(
        `  ${scope} ${event.result.probe}: ${event.result.verdict}${timedOut} in ${event.seconds.toFixed(1)} s; ${left} left, about ${Math.ceil(left * perProbe)} s`,
      );
    },
  });
}

/** The candidate folder for a baseline folder: `--candidate` itself for a lone folder, else its `scope`; never empty. */
async function candidateFolder(cand: string, scope: string, alone: boolean): Promise<string> {
  const candDir = alone ? cand : join(cand, scope);
  if (!(await isDir(candDir))) throw new UsageError(`--candidate: ${candDir} does not exist; it needs the same layout as the baseline`);
  // An empty folder would read as a server that lost everything.
  if ((await listFiles(candDir, isCassetteFile)).length === 0)
    throw new UsageError(
      `--candidate: ${candDir} holds no cassette; record into it first (bench record --out), or name the folder that has them`,
    );
  return candDir;
}

/** Sends every recording of a folder no family made to `--server` again, as its client did, into `candDir`. */
async function rerunFolder(baseDir: string, candDir: string, options: DriftOptions): Promise<void> {
  const files = await listFiles(baseDir, isCassetteFile);
  options.onProgress?.(`re-running ${files.length} recordings of ${baseDir} against ${options.server}`);
  for (const file of files) {
    const out = join(candDir, relative(baseDir, file));
    await mkdir(dirname(out), { recursive: true });
    const report = await rerunCassette({ cassette: file, server: options.server as string, out, headers: options.headers });
    options.onProgress?.(`  ${describeRerun(report)}`);
    for (const failure of report.failures) options.onProgress?.(`    failed: ${failure}`);
  }
}

/** Re-records or reads the candidate, compares it with the baseline, and optionally adopts it. */
export async function runDrift(options: DriftOptions): Promise<DriftReport> {
  if ([options.server, options.peer, options.candidate].filter(Boolean).length !== 1)
    throw new UsageError('give exactly one of --server URL or --peer BINARY (re-record) or --candidate DIR (compare folders)');
  const target = options.target ?? DEFAULT_FAMILY;
  const suite = familyById(target);
  if (options.peer && !suite.peer)
    throw new UsageError(
      `--peer re-records a real vendor server; add --target ${familyIds()
        .filter((t) => familyById(t).peer)
        .join(' or --target ')}`,
    );
  const source = options.server ?? (options.peer ? `the real ${target} (${options.peer})` : undefined);
  const all = await harnessFolders(options.baseline, options.harness);
  const folders: [string, string][] = [];
  for (const [scope, dir] of all) {
    // One server serves one family: re-recording only makes sense for the folders of that family. A folder no family
    // recorded (bench proxy's) is re-run as it was recorded, against --server.
    const family = await familyOf(dir);
    const mine = !source || family === suite || (family === undefined && options.server !== undefined);
    if (mine) folders.push([scope, dir]);
    else options.onProgress?.(`leaving out ${scope}: it is not a ${target} recording (use --target to re-record it)`);
  }
  if (folders.length === 0)
    throw new UsageError(
      `${options.baseline} holds no recorded ${source ? `${target} ` : ''}harness${options.harness ? ` named ${options.harness}` : ''}`,
    );
  const recorded = source ? await mkdtemp(join(tmpdir(), 'tapedeck-drift-')) : undefined;
  const findings: Finding[] = [];
  const compared: DriftReport['compared'] = [];
  const pairs: [string, string, string][] = [];
  try {
    for (const [scope, baseDir] of folders) {
      let candDir: string;
      const turnStarts = await turnStartsOf(baseDir);
      const base = await profileFolder(baseDir, options.config, undefined, turnStarts);
      if (recorded && base.manifest === undefined) {
        candDir = join(recorded, scope);
        await rerunFolder(baseDir, candDir, options);
      } else if (recorded) {
        await rerecordFolder(suite, scope, baseDir, recorded, base.longestMs, options);
        candDir = join(recorded, scope);
      } else {
        candDir = await candidateFolder(options.candidate as string, scope, folders.length === 1 && baseDir === options.baseline);
      }
      const noise = await noiseOf(baseDir);
      const cand = await profileFolder(candDir, options.config, undefined, turnStarts);
      // A probe the candidate did not record (skipped) is its verdict's finding; its traffic is not "gone" from the server.
      const missing = base.probes.filter((p) => !cand.probes.includes(p));
      const compareBase = missing.length && recorded ? await profileFolder(baseDir, options.config, cand.probes, turnStarts) : base;
      if (base.manifest) compareBase.manifest = base.manifest;
      findings.push(...compareProfiles(scope, compareBase, cand, noise));
      compared.push({ scope, probes: base.probes.filter((p) => cand.probes.includes(p)).map((p) => p.replace(/\.ya?ml$/, '')) });
      pairs.push([scope, baseDir, candDir]);
    }
    const failOn = options.failOn ?? options.config.failOn;
    const report: DriftReport = {
      baseline: options.baseline,
      candidate: source ?? (options.candidate as string),
      compared,
      findings,
      failOn,
      failed: findings.some((f) => ORDER[f.severity] <= ORDER[failOn]),
    };
    if (options.update) {
      for (const [, baseDir, candDir] of pairs) {
        // Copy beside, then swap: an interrupted update never leaves half a baseline.
        const staged = `${baseDir}.tapedeck-update`;
        await rm(staged, { recursive: true, force: true });
        await cp(candDir, staged, { recursive: true });
        await rm(baseDir, { recursive: true, force: true });
        await rename(staged, baseDir);
      }
    }
    return report;
  } finally {
    if (recorded) await rm(recorded, { recursive: true, force: true });
  }
}
