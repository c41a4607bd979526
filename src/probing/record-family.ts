import { mkdir, readdir, rm, rmdir, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { UsageError } from '../errors.js';
import type { Family, FamilyProbe, PlanContext, RunningServer } from '../families/index.js';
import { selectNamed } from '../families/kit/index.js';
import { DEFAULT_SUITE, type Manifest, type ProbeResult, reconcile, writeManifest } from '../manifest/index.js';
import { recordToFile } from '../recorder/index.js';
import type { RecordFamilyOptions } from './options.js';
import { settleRecording } from './settle-recording.js';
import { RecordingStopped, unlessStopped } from './stopped.js';

type Sim = NonNullable<Family['simulator']>;
const FOLDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** What the family's plan is told: the server, how long to wait, its key, variant and inputs. */
function planContext(options: RecordFamilyOptions, server: string, simulator: RunningServer | undefined): PlanContext {
  return {
    server,
    pace: options.pace ?? (simulator ? 'simulated' : 'live'),
    turnMs: options.turnMs,
    apiKey: options.apiKey ?? simulator?.apiKey,
    variant: options.variant,
    inputs: options.inputs,
  };
}

/**
 * The one record loop: starts the family's simulator unless a server is given,
 * records each probe through its own proxy into `<outDir>/<folder>/<probe>.yaml`,
 * then writes the manifest; files that changed only in their timings stay as they were.
 */
export async function recordFamily<P extends FamilyProbe>(family: Family<P>, options: RecordFamilyOptions): Promise<Manifest> {
  if (options.folder !== undefined && !FOLDER_NAME.test(options.folder))
    throw new UsageError(
      `--folder ${JSON.stringify(options.folder)}: give a plain folder name (letters, digits, . _ -), created under --out`,
    );
  if (family.variants) {
    if (options.variant === undefined)
      throw new UsageError(`--${family.variants.flag} is required for the ${family.id} target: ${family.variants.ids.join(', ')}`);
    family.variants.check(options.variant);
  } else if (options.variant !== undefined)
    throw new UsageError(`--harness names a variant; the ${family.id} target records its own probes without one`);
  const selected = selectNamed(family.probes, options.probes, family.id);
  // A file where the folder should be would only fail once the first probe saves.
  const out = await stat(options.outDir).catch(() => undefined);
  if (out && !out.isDirectory()) throw new UsageError(`--out ${options.outDir} is a file; give a folder (it is created when missing)`);
  const seed = options.simulator?.seed ?? 1;
  const stop = options.signal;
  if (!options.server && !family.simulator)
    throw new UsageError(`the ${family.id} target has no embedded simulator; give --server URL (or --peer, where it has one)`);
  const simulator = options.server ? undefined : await unlessStopped((family.simulator as Sim).start({ ...options.simulator, seed }), stop);
  let stage: string | undefined;
  let created: string | undefined;
  const results: ProbeResult[] = [];
  let settled = false;
  try {
    const server = options.server ?? (simulator as { url: string }).url;
    const plan = family.plan(planContext(options, server, simulator), selected);
    // After the plan, which refuses missing flags (an API key) first: they are the user's to fix before any server is asked.
    if (options.server) await family.checkServer?.(options.server);
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
    const described = simulator ? (family.simulator as Sim).describe(seed) : (options.described ?? server);
    const target = family.proxyTarget?.(server) ?? server;
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
              packs: (plan.packs ?? family.packs).map((p) => p.name),
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
      ...(family.suite === DEFAULT_SUITE ? {} : { suite: family.suite }),
      // A variant family's manifest names the variant (the harness), wherever its folder is.
      harness: family.variants ? plan.folder : folder,
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
