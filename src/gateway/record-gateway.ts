import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RedactionConfig } from '../cassette/index.js';
import { UsageError } from '../errors.js';
import type { Manifest, ProbeResult } from '../probes/manifest.js';
import { writeManifest } from '../probes/manifest.js';
import type { FetchLike } from '../probes/session-client.js';
import { reconcile, type Verdict } from '../probes/verdict.js';
import { recordToFile } from '../recorder/index.js';
import { startHermesSimulator } from '../simulator/hermes/index.js';
import { GatewayClient } from './client.js';
import { GATEWAY_PROBE_NAMES, GATEWAY_PROBES, type GatewayProbe, type GatewayProbeName } from './probes.js';

/** The folder (under --out) and manifest harness name of gateway recordings. */
export const GATEWAY_FOLDER = 'hermes';
/** Packs for gateway cassettes; each applies only to the stream routes it describes. */
export const GATEWAY_PACKS = ['openai/chat-completions', 'hermes/responses', 'hermes/runs', 'hermes/session-stream'];
/** Ceiling for one probe's waits against the simulator or a replay; a live gateway gets LIVE_TURN_MS. */
export const GATEWAY_TURN_MS = 10_000;
export const LIVE_TURN_MS = 120_000;

export interface RecordGatewayOptions {
  /** A live gateway's base URL (with `apiKey`); without it the embedded simulator runs. */
  server?: string | undefined;
  apiKey?: string | undefined;
  probes?: readonly string[] | undefined;
  outDir: string;
  seed?: number;
  redact?: RedactionConfig | undefined;
  onProgress?: (event: { kind: 'start'; probe: GatewayProbeName } | { kind: 'done'; result: ProbeResult; seconds: number }) => void;
}

/** Every gateway probe is expected to work: its declared verdict is SUPPORTED. */
const DECLARED: Verdict = 'SUPPORTED';

/** Runs one gateway probe; trouble reaching or reading the gateway is UNKNOWN with the reason, never a capability verdict. */
export async function observeGatewayProbe(probe: GatewayProbe, client: GatewayClient, turnMs = GATEWAY_TURN_MS) {
  try {
    const { observed, note } = await probe.run(client, turnMs);
    return { observed, verdict: reconcile(observed, DECLARED), reason: note };
  } catch (err) {
    return { observed: 'UNKNOWN' as const, verdict: 'UNKNOWN' as const, reason: `probe error: ${(err as Error).message}` };
  }
}

/** Replays a recorded gateway probe: any API key works, the replayer matches the redacted header. */
export function replayGatewayProbe(name: string, baseUrl: string, fetch: FetchLike, turnMs = GATEWAY_TURN_MS) {
  const probe = GATEWAY_PROBES.find((p) => p.name === name);
  if (!probe) throw new UsageError(`unknown gateway probe ${name}; probes: ${GATEWAY_PROBE_NAMES.join(', ')}`);
  return observeGatewayProbe(probe, new GatewayClient(baseUrl, 'replay-key', fetch), turnMs);
}

function selectProbes(names: readonly string[] | undefined): readonly GatewayProbe[] {
  if (!names) return GATEWAY_PROBES;
  for (const n of names)
    if (!(GATEWAY_PROBE_NAMES as readonly string[]).includes(n))
      throw new UsageError(`unknown gateway probe ${JSON.stringify(n)}; probes: ${GATEWAY_PROBE_NAMES.join(', ')}`);
  return GATEWAY_PROBES.filter((p) => names.includes(p.name));
}

/**
 * Runs the gateway probes through the recording proxy, one cassette per probe
 * and a manifest under `outDir/hermes/`.
 */
export async function recordGateway(options: RecordGatewayOptions): Promise<Manifest> {
  const probes = selectProbes(options.probes);
  if (options.server && !options.apiKey)
    throw new UsageError('--server needs --api-key (or HERMES_API_KEY): the gateway refuses requests without its key');
  const dir = resolve(options.outDir, GATEWAY_FOLDER);
  const seed = options.seed ?? 1;
  const simulator = options.server ? undefined : await startHermesSimulator({ seed });
  const target = options.server ?? (simulator as { url: string }).url;
  const apiKey = options.apiKey ?? (simulator as { apiKey: string }).apiKey;
  const described = simulator ? `embedded hermes gateway simulator (seed ${seed})` : target;
  const results: ProbeResult[] = [];
  try {
    for (const probe of probes) {
      options.onProgress?.({ kind: 'start', probe: probe.name });
      const started = performance.now();
      const file = `${probe.name}.yaml`;
      const out = await recordToFile(
        {
          target,
          labels: { harness: GATEWAY_FOLDER, probe: probe.name },
          file: join(dir, file),
          describedAs: described,
          packs: GATEWAY_PACKS,
          redact: options.redact,
        },
        (url) => observeGatewayProbe(probe, new GatewayClient(url, apiKey), simulator ? GATEWAY_TURN_MS : LIVE_TURN_MS),
      );
      const result: ProbeResult = { probe: probe.name, priority: probe.priority, declared: DECLARED, ...out, cassette: file };
      results.push(result);
      options.onProgress?.({ kind: 'done', result, seconds: (performance.now() - started) / 1000 });
    }
  } finally {
    await simulator?.close();
  }
  const manifest: Manifest = {
    version: 1,
    suite: 'hermes-gateway',
    harness: GATEWAY_FOLDER,
    target: described,
    recordedAt: new Date().toISOString(),
    probes: results,
  };
  await writeManifest(join(dir, 'manifest.yaml'), manifest);
  return manifest;
}
