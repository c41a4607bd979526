import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { JsonClient } from '../gateway/client.js';
import type { Manifest } from '../probes/manifest.js';
import { LIVE_TURN_MS, observeSafely, recordSuite, SIMULATED_TURN_MS, type SuiteOptions, selectNamed } from '../probes/record-suite.js';
import type { FetchLike } from '../probes/session-client.js';
import { reconcile } from '../probes/verdict.js';
import { startOpenCodeSimulator } from '../simulator/opencode/index.js';
import { OPENCODE_PROBES, type OpenCodeProbe } from './probes.js';

/** The folder (under --out) and manifest harness name of opencode recordings. */
export const OPENCODE_FOLDER = 'opencode-serve';
export const OPENCODE_PACKS = ['opencode/events'];

export interface RecordOpenCodeOptions extends SuiteOptions {
  /** `OPENCODE_SERVER_PASSWORD` of a live server (Basic auth as `opencode`). */
  password?: string | undefined;
}

/** The client every opencode probe uses: the workspace as `x-opencode-directory`, Basic auth when a password is set. */
async function clientFor(baseUrl: string, fetch?: FetchLike, password?: string): Promise<JsonClient> {
  const directory = join(tmpdir(), 'tapedeck-bench', OPENCODE_FOLDER);
  await mkdir(directory, { recursive: true });
  const auth = password ? { authorization: `Basic ${Buffer.from(`opencode:${password}`).toString('base64')}` } : {};
  return new JsonClient(baseUrl, { 'x-opencode-directory': directory, ...auth }, fetch);
}

/** Runs one probe; trouble reaching the server is UNKNOWN with the reason, never a capability verdict. */
export const observeOpenCodeProbe = (probe: OpenCodeProbe, client: JsonClient, turnMs = SIMULATED_TURN_MS) =>
  observeSafely(() => probe.run(client, turnMs));

/** Replays a recorded opencode probe through any HTTP door (a fetch). */
export async function replayOpenCodeProbe(name: string, baseUrl: string, fetch: FetchLike, turnMs = SIMULATED_TURN_MS) {
  const probe = OPENCODE_PROBES.find((p) => p.name === name);
  if (!probe) throw new UsageError(`unknown opencode probe ${name}`);
  const { observed, reason } = await observeOpenCodeProbe(probe, await clientFor(baseUrl, fetch), turnMs);
  return { verdict: reconcile(observed, 'SUPPORTED'), reason };
}

/** Runs the opencode probes through the recording proxy into `outDir/opencode-serve/`. */
export async function recordOpenCode(options: RecordOpenCodeOptions): Promise<Manifest> {
  const probes = selectNamed(OPENCODE_PROBES, options.probes, 'opencode');
  const seed = options.seed ?? 1;
  const simulator = options.server ? undefined : await startOpenCodeSimulator({ seed });
  const target = options.server ?? (simulator as { url: string }).url;
  try {
    return await recordSuite(
      {
        suite: 'opencode-serve',
        folder: OPENCODE_FOLDER,
        outDir: options.outDir,
        target,
        described: simulator ? `embedded opencode serve simulator (seed ${seed})` : target,
        packs: OPENCODE_PACKS,
        redact: options.redact,
        probes,
        observe: async (probe, url) =>
          observeOpenCodeProbe(probe, await clientFor(url, undefined, options.password), simulator ? SIMULATED_TURN_MS : LIVE_TURN_MS),
        onProgress: options.onProgress,
      },
      options,
    );
  } finally {
    await simulator?.close();
  }
}
