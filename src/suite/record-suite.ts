import { mkdir, readdir, rm, rmdir, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { UsageError } from '../errors.js';
import {
  DEFAULT_SUITE,
  type Manifest,
  type ProbeResult,
  reconcile,
  type SuiteObservation,
  type Verdict,
  writeManifest,
} from '../manifest/index.js';
import { recordToFile } from '../recorder/index.js';
import { isInfrastructure, RecordingStopped, unlessStopped } from './errors.js';
import { settleRecording } from './settle-recording.js';
import type { RecordSuiteOptions, Suite, SuiteProbe } from './suite.js';

/**
 * Runs a probe. Infrastructure trouble (the server down, an HTTP error where
 * the probe needed an answer, provisioning that never finished) is SKIPPED with
 * the reason; any other failure is UNKNOWN: never a capability verdict.
 */
export async function observeSafely(run: () => Promise<SuiteObservation>): Promise<{ observed: Verdict; reason: string }> {
  try {
    const { observed, note } = await run();
    return { observed, reason: note };
  } catch (err) {
    const message = (err as Error).message;
    return isInfrastructure(err) ? { observed: 'SKIPPED', reason: message } : { observed: 'UNKNOWN', reason: `probe error: ${message}` };
  }
}

/** The probe named `name`, or a usage error naming the known ones. */
export function findProbe<P extends { name: string }>(all: readonly P[], name: string, what: string): P {
  const probe = all.find((p) => p.name === name);
  if (!probe) throw new UsageError(`unknown ${what} probe ${JSON.stringify(name)}; probes: ${all.map((p) => p.name).join(', ')}`);
  return probe;
}

/** The probes named in `names` (all when absent), or a usage error naming the known ones. */
export function selectNamed<P extends { name: string }>(
  all: readonly P[],
  names: readonly string[] | undefined,
  what: string,
): readonly P[] {
  if (!names) return all;
  for (const n of names) findProbe(all, n, what);
  return all.filter((p) => names.includes(p.name));
}

const FOLDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The one record loop: starts the suite's simulator unless a server is given,
 * records each probe through its own proxy into `<outDir>/<folder>/<probe>.yaml`,
 * then writes the manifest; files that changed only in their timings stay as they were.
 */
export async function recordSuite<P extends SuiteProbe>(suite: Suite<P>, options: RecordSuiteOptions): Promise<Manifest> {
  if (options.folder !== undefined && !FOLDER_NAME.test(options.folder))
    throw new UsageError(
      `--folder ${JSON.stringify(options.folder)}: give a plain folder name (letters, digits, . _ -), created under --out`,
    );
  if (suite.variants) {
    if (options.variant === undefined)
      throw new UsageError(`--${suite.variants.flag} is required for the ${suite.target} target: ${suite.variants.ids.join(', ')}`);
    suite.variants.check(options.variant);
  } else if (options.variant !== undefined)
    throw new UsageError(`--harness names an omnigent harness; the ${suite.target} target records its own probes without one`);
  const selected = selectNamed(suite.probes, options.probes, suite.target);
  // A file where the folder should be would only fail once the first probe saves.
  const out = await stat(options.outDir).catch(() => undefined);
  if (out && !out.isDirectory()) throw new UsageError(`--out ${options.outDir} is a file; give a folder (it is created when missing)`);
  const seed = options.simulator?.seed ?? 1;
  const stop = options.signal;
  const simulator = options.server ? undefined : await unlessStopped(suite.simulator.start({ ...options.simulator, seed }), stop);
  let stage: string | undefined;
  let created: string | undefined;
  const results: ProbeResult[] = [];
  let settled = false;
  try {
    const server = options.server ?? (simulator as { url: string }).url;
    const plan = suite.plan(
      {
        server,
        pace: options.pace ?? (simulator ? 'simulated' : 'live'),
        turnMs: options.turnMs,
        apiKey: options.apiKey ?? simulator?.apiKey,
        variant: options.variant,
      },
      selected,
    );
    // After the plan, which refuses missing flags (an API key) first: they are the user's to fix before any server is asked.
    if (options.server) await suite.checkServer?.(options.server);
    const folder = options.folder ?? plan.folder;
    const outRoot = resolve(options.outDir);
    const dir = resolve(outRoot, folder);
    if (!dir.startsWith(outRoot + sep)) throw new UsageError(`${folder} would write outside ${options.outDir}`);
    // Written beside the folder and moved in at the end: an interrupted run leaves the folder as it was, and
    // what an unchanged server gives again is not rewritten (settleRecording).
    stage = join(outRoot, `.${folder}.recording-${process.pid}`);
    created = (await stat(dir).catch(() => undefined)) === undefined ? dir : undefined;
    await mkdir(dir, { recursive: true });
    await rm(stage, { recursive: true, force: true });
    await mkdir(stage);
    const described = simulator ? suite.simulator.describe(seed) : (options.described ?? server);
    const target = suite.proxyTarget?.(server) ?? server;
    let gate: string | undefined;
    await unlessStopped(Promise.resolve(plan.ready?.()), stop);
    for (const probe of plan.probes) {
      // Checked before a probe starts anything: a started probe would make its folder again.
      if (stop?.aborted) throw new RecordingStopped(String(stop.reason));
      options.onProgress?.({ kind: 'start', probe: probe.name });
      const started = performance.now();
      const { declared, skip, notApplicable } = plan.declare(probe);
      const base = { probe: probe.name, priority: probe.priority, ...(declared ? { declared } : {}) };
      let result: ProbeResult;
      if (notApplicable && !gate) {
        result = { ...base, observed: 'NOT_APPLICABLE', verdict: 'NOT_APPLICABLE', reason: notApplicable };
      } else if (skip || gate) {
        result = { ...base, observed: 'SKIPPED', verdict: 'SKIPPED', reason: skip ?? (gate as string) };
      } else {
        const file = `${probe.name}.yaml`;
        const { observed, reason } = await unlessStopped(
          recordToFile(
            {
              target,
              labels: { harness: folder, probe: probe.name },
              file: join(stage, file),
              describedAs: described,
              packs: [...(plan.packs ?? suite.packs)],
              redact: options.redact,
              signal: stop,
            },
            (url) => plan.observe(probe, url),
          ),
          stop,
        );
        result = { ...base, observed, verdict: reconcile(observed, declared), reason, cassette: file };
      }
      if (probe.name === plan.gate && result.verdict !== 'SUPPORTED')
        gate = `${probe.name} is ${result.verdict}: later probes need a working turn`;
      results.push(result);
      options.onProgress?.({ kind: 'done', result, seconds: (performance.now() - started) / 1000 });
    }
    const manifest: Manifest = {
      version: 1,
      ...(suite.id === DEFAULT_SUITE ? {} : { suite: suite.id }),
      // A variant suite's manifest names the variant (the harness), wherever its folder is.
      harness: suite.variants ? plan.folder : folder,
      target: described,
      recordedAt: new Date().toISOString(),
      probes: results,
    };
    await writeManifest(join(stage, 'manifest.yaml'), manifest);
    const files = [...results.flatMap((r) => (r.cassette ? [r.cassette] : [])), 'manifest.yaml'];
    const moved = await settleRecording(stage, dir, files);
    settled = true;
    options.onProgress?.({ kind: 'saved', ...moved });
    return manifest;
  } finally {
    await simulator?.close();
    // A run that did not reach its end leaves no staging folder behind (the folder itself was never touched).
    if (stage && !settled) {
      // What a stop finds recorded (finished cassettes, the journal of the probe under way) is kept and said; nothing leaves nothing.
      const found = (await readdir(stage).catch(() => [])).sort();
      if (found.length > 0) options.onProgress?.({ kind: 'kept', folder: stage, files: found });
      else await rm(stage, { recursive: true, force: true });
      // A folder this run made and never filled goes too; rmdir refuses one that holds anything.
      if (created) await rmdir(created).catch(() => {});
    }
  }
}
