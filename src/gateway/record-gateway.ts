import type { RedactionConfig } from '../cassette/index.js';
import { UsageError } from '../errors.js';
import type { Manifest } from '../probes/manifest.js';
import { recordSuite, type SuiteProgress, selectNamed } from '../probes/record-suite.js';
import type { FetchLike } from '../probes/session-client.js';
import { reconcile, type Verdict } from '../probes/verdict.js';
import { startHermesSimulator } from '../simulator/hermes/index.js';
import { GatewayClient } from './client.js';
import { GATEWAY_PROBE_NAMES, GATEWAY_PROBES, type GatewayProbe } from './probes.js';

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
  onProgress?: ((event: SuiteProgress) => void) | undefined;
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

/**
 * Runs the gateway probes through the recording proxy, one cassette per probe
 * and a manifest under `outDir/hermes/`.
 */
export async function recordGateway(options: RecordGatewayOptions): Promise<Manifest> {
  const probes = selectNamed(GATEWAY_PROBES, options.probes, 'gateway');
  if (options.server && !options.apiKey)
    throw new UsageError('--server needs --api-key (or HERMES_API_KEY): the gateway refuses requests without its key');
  const seed = options.seed ?? 1;
  const simulator = options.server ? undefined : await startHermesSimulator({ seed });
  const target = options.server ?? (simulator as { url: string }).url;
  const apiKey = options.apiKey ?? (simulator as { apiKey: string }).apiKey;
  try {
    return await recordSuite({
      suite: 'hermes-gateway',
      folder: GATEWAY_FOLDER,
      outDir: options.outDir,
      target,
      described: simulator ? `embedded hermes gateway simulator (seed ${seed})` : target,
      packs: GATEWAY_PACKS,
      redact: options.redact,
      probes,
      observe: (probe, url) => observeGatewayProbe(probe, new GatewayClient(url, apiKey), simulator ? GATEWAY_TURN_MS : LIVE_TURN_MS),
      onProgress: options.onProgress,
    });
  } finally {
    await simulator?.close();
  }
}
