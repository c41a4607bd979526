import { join, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RedactionConfig } from '../cassette/index.js';
import { TapedeckError, UsageError } from '../errors.js';
import { findHarness, type HarnessProfile, recordableHarnessIds } from '../harnesses/index.js';
import { recordToFile } from '../recorder/index.js';
import { type OmnigentSimulatorOptions, startOmnigentSimulator } from '../simulator/omnigent/index.js';
import { type DriverTimings, LIVE_TIMINGS, SessionDriver } from './driver.js';
import { ProvisioningError, ServerResponseError } from './errors.js';
import { type Manifest, type ProbeResult, writeManifest } from './manifest.js';
import { PROBE_NAMES, PROBES, type Probe, type ProbeName } from './probes.js';
import { reconcile, type Verdict } from './verdict.js';

/** Driver timings against the embedded simulator: it never needs the live ceilings. */
export const SIMULATOR_TIMINGS: DriverTimings = {
  provisionMs: 5000,
  turnMs: 30_000,
  settleMs: 40,
  denyObserveMs: 1000,
  interruptHoldMs: 150,
  pollMs: 20,
};
/** Packs that apply to native-tui recordings (checked by `bench verify`). */
export const NATIVE_TUI_PACKS = ['omnigent/stream', 'omnigent/native-tui'];

export interface RecordOptions {
  harness: string;
  /** A live server's base URL; without it the embedded simulator is started. */
  server?: string | undefined;
  probes?: readonly string[] | undefined;
  outDir: string;
  /** Simulator options (seed, latency, behaviour); ignored with `server`. */
  simulator?: OmnigentSimulatorOptions;
  timings?: DriverTimings;
  /** Redaction beyond the defaults (`tapedeck.config.json` "redact"). */
  redact?: RedactionConfig | undefined;
  onProgress?: (event: { kind: 'start'; probe: ProbeName } | { kind: 'done'; result: ProbeResult; seconds: number }) => void;
}

/** Validates a harness id for recording: known, native-tui, and safe as a folder name. */
export function recordableHarness(id: string): HarnessProfile {
  const harness = findHarness(id);
  if (!harness || !/^[a-z0-9][a-z0-9-]*$/.test(id)) {
    throw new UsageError(`unknown harness ${JSON.stringify(id)}; known native-tui harnesses: ${recordableHarnessIds().join(', ')}`);
  }
  if (harness.integrationMode !== 'native-tui') {
    throw new UsageError(
      `${id} is a ${harness.integrationMode} harness; bench record drives native-tui harnesses: ${recordableHarnessIds().join(', ')}`,
    );
  }
  return harness;
}

function selectProbes(names: readonly string[] | undefined) {
  if (!names) return PROBES;
  for (const n of names) {
    if (!(PROBE_NAMES as readonly string[]).includes(n))
      throw new UsageError(`unknown probe ${JSON.stringify(n)}; probes: ${PROBE_NAMES.join(', ')}`);
  }
  return PROBES.filter((p) => names.includes(p.name));
}

async function checkReachable(server: string): Promise<void> {
  try {
    const res = await fetch(new URL('/health', server), { signal: AbortSignal.timeout(5000) });
    await res.arrayBuffer();
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    throw new TapedeckError(
      'server_unreachable',
      `cannot reach ${server} (${cause}); is the server running? Omit --server to record the embedded simulator`,
    );
  }
}

/**
 * Provisions a session and runs one probe. Infrastructure trouble (HTTP errors,
 * provisioning timeouts) is SKIPPED with the reason, never a capability verdict.
 */
export async function observeProbe(probe: Probe, driver: SessionDriver): Promise<{ observed: Verdict; reason: string }> {
  try {
    await driver.provision();
    const { observed, note } = await probe.run(driver, probe.declare(driver.harness).declared);
    // Cleaning up is not part of the verdict: a server that refuses deletion still gets its verdict.
    await driver.teardown().catch(() => {});
    return { observed, reason: note };
  } catch (err) {
    const infra = err instanceof ProvisioningError || err instanceof ServerResponseError;
    return { observed: infra ? 'SKIPPED' : 'UNKNOWN', reason: `${infra ? '' : 'probe error: '}${(err as Error).message}` };
  }
}

/**
 * Runs the probe suite for one harness through the recording proxy, writing one
 * cassette per probe and a manifest of verdicts under `outDir/<harness>/`.
 */
export async function recordHarness(options: RecordOptions): Promise<Manifest> {
  const harness = recordableHarness(options.harness);
  const probes = selectProbes(options.probes);
  const outRoot = resolve(options.outDir);
  const dir = resolve(outRoot, harness.id);
  if (!dir.startsWith(outRoot + sep)) throw new UsageError(`harness id ${harness.id} would write outside ${options.outDir}`);
  if (options.server) {
    try {
      new URL(options.server);
    } catch {
      throw new UsageError(`--server ${JSON.stringify(options.server)} is not a URL; give one like http://127.0.0.1:6767`);
    }
    await checkReachable(options.server);
  }
  const seed = options.simulator?.seed ?? 1;
  const simulator = options.server ? undefined : await startOmnigentSimulator({ ...options.simulator, seed });
  const target = options.server ?? (simulator as { url: string }).url;
  const timings = options.timings ?? (simulator ? SIMULATOR_TIMINGS : LIVE_TIMINGS);
  const results: ProbeResult[] = [];
  let gate: string | undefined;
  try {
    for (const probe of probes) {
      options.onProgress?.({ kind: 'start', probe: probe.name });
      const started = performance.now();
      const { declared, skip } = probe.declare(harness);
      const base = { probe: probe.name, priority: probe.priority, ...(declared ? { declared } : {}) };
      let result: ProbeResult;
      if (skip || gate) {
        result = { ...base, observed: 'SKIPPED', verdict: 'SKIPPED', reason: skip ?? (gate as string) };
      } else {
        const file = `${probe.name}.yaml`;
        const { observed, reason } = await recordToFile(
          {
            target,
            labels: { harness: harness.id, probe: probe.name },
            file: join(dir, file),
            describedAs: simulator ? `embedded omnigent simulator (seed ${seed})` : undefined,
            packs: NATIVE_TUI_PACKS,
            redact: options.redact,
          },
          (url) => observeProbe(probe, new SessionDriver(url, harness, timings)),
        );
        result = { ...base, observed, verdict: reconcile(observed, declared), reason, cassette: file };
      }
      if (probe.name === 'basic_turn' && result.verdict !== 'SUPPORTED')
        gate = `basic_turn is ${result.verdict}: later probes need a working turn`;
      results.push(result);
      options.onProgress?.({ kind: 'done', result, seconds: (performance.now() - started) / 1000 });
    }
  } finally {
    await simulator?.close();
  }
  const manifest: Manifest = {
    version: 1,
    harness: harness.id,
    target: simulator ? `embedded omnigent simulator (seed ${seed})` : target,
    recordedAt: new Date().toISOString(),
    probes: results,
  };
  await writeManifest(join(dir, 'manifest.yaml'), manifest);
  return manifest;
}
