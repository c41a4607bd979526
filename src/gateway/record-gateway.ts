import { UsageError } from '../errors.js';
import type { Manifest } from '../probes/manifest.js';
import { LIVE_TURN_MS, observeSafely, recordSuite, SIMULATED_TURN_MS, type SuiteOptions, selectNamed } from '../probes/record-suite.js';
import type { FetchLike } from '../probes/session-client.js';
import { reconcile } from '../probes/verdict.js';
import { startHermesSimulator } from '../simulator/hermes/index.js';
import { GatewayClient } from './client.js';
import { GATEWAY_PROBE_NAMES, GATEWAY_PROBES, type GatewayProbe } from './probes.js';

/** The folder (under --out) and manifest harness name of gateway recordings. */
export const GATEWAY_FOLDER = 'hermes';
/** Packs for gateway cassettes; each applies only to the stream routes it describes. */
export const GATEWAY_PACKS = ['openai/chat-completions', 'hermes/responses', 'hermes/runs', 'hermes/session-stream'];

export interface RecordGatewayOptions extends SuiteOptions {
  /** The live gateway's API key (with `server`). */
  apiKey?: string | undefined;
}

/** Runs one gateway probe; trouble reaching or reading the gateway is UNKNOWN with the reason. */
export const observeGatewayProbe = (probe: GatewayProbe, client: GatewayClient, turnMs = SIMULATED_TURN_MS) =>
  observeSafely(() => probe.run(client, turnMs));

/** Replays a recorded gateway probe: any API key works, the replayer matches the redacted header. */
export async function replayGatewayProbe(name: string, baseUrl: string, fetch: FetchLike, turnMs = SIMULATED_TURN_MS) {
  const probe = GATEWAY_PROBES.find((p) => p.name === name);
  if (!probe) throw new UsageError(`unknown gateway probe ${name}; probes: ${GATEWAY_PROBE_NAMES.join(', ')}`);
  const { observed, reason } = await observeGatewayProbe(probe, new GatewayClient(baseUrl, 'replay-key', fetch), turnMs);
  return { verdict: reconcile(observed, 'SUPPORTED'), reason };
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
    return await recordSuite(
      {
        suite: 'hermes-gateway',
        folder: GATEWAY_FOLDER,
        outDir: options.outDir,
        target,
        described: simulator ? `embedded hermes gateway simulator (seed ${seed})` : target,
        packs: GATEWAY_PACKS,
        redact: options.redact,
        probes,
        observe: (probe, url) => observeGatewayProbe(probe, new GatewayClient(url, apiKey), simulator ? SIMULATED_TURN_MS : LIVE_TURN_MS),
        onProgress: options.onProgress,
      },
      options,
    );
  } finally {
    await simulator?.close();
  }
}
