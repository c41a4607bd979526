import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fetch as undiciFetch } from 'undici';
import { loadCassette } from '../cassette/index.js';
import { replayCodexFile, replayCodexProbe } from '../codex/record-codex.js';
import { UsageError } from '../errors.js';
import { replayGatewayProbe } from '../gateway/record-gateway.js';
import type { HarnessProfile } from '../harnesses/index.js';
import { replayOpenCodeProbe } from '../opencode/record-opencode.js';
import { cassetteDispatcher, type NamedCassette, type ReplayOptions } from '../replayer/index.js';
import { type DriverTimings, SessionDriver } from './driver.js';
import { loadManifest, type ProbeResult } from './manifest.js';
import { PROBES, type Probe } from './probes.js';
import { observeProbe, recordableHarness } from './record-harness.js';
import type { FetchLike } from './session-client.js';
import { reconcile, type Verdict } from './verdict.js';

export interface ReplayCheckRow {
  harness: string;
  probe: string;
  expected: Verdict;
  replayed: Verdict;
  reason: string;
  ok: boolean;
}

/** Driver timings against a replay: events are released as soon as they are due, so nothing needs long waits. */
export const REPLAY_TIMINGS = { provisionMs: 2000, turnMs: 10_000, settleMs: 1, denyObserveMs: 300, interruptHoldMs: 1, pollMs: 5 };

/** The base URL the driver uses against a replay; any origin works, nothing is dialled. */
export const REPLAY_ORIGIN = 'http://replay.tapedeck.invalid';

/** A fetch that answers from cassettes through tapedeck's undici dispatcher: no socket at all. */
export function cassetteFetch(...args: Parameters<typeof cassetteDispatcher>): FetchLike {
  const dispatcher = cassetteDispatcher(...args);
  return (url, init) => undiciFetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
}

/** Harness folders (with a manifest.yaml) at or under `dir`. */
async function harnessFolders(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => {
    throw new UsageError(`${dir}: no such folder; replay-check takes the folder bench record wrote (default cassettes/)`);
  });
  if (names.includes('manifest.yaml')) return [dir];
  const out: string[] = [];
  for (const name of names.sort()) {
    const path = join(dir, name);
    if ((await stat(path)).isDirectory() && (await readdir(path)).includes('manifest.yaml')) out.push(path);
  }
  return out;
}

/**
 * A way to reach a replay of one cassette: a fetch, its base URL, and how to
 * stop it; `cassettes`, when the probe needs a socket of its own (WebSocket
 * sessions), are what that socket replays instead of the file.
 */
export type ReplayDoor = { fetch: FetchLike; baseUrl?: string; done?: () => Promise<void>; cassettes?: readonly NamedCassette[] };

/** One recorded probe of a harness folder: its manifest row, its cassette, and how to run its driver against a replay. */
export interface RecordedProbe {
  /** The harness id, or `hermes` for gateway recordings. */
  harness: string;
  probe: string;
  result: ProbeResult & { cassette: string };
  file: string;
  /** Runs the probe's own driver against a replay door and reconciles its verdict with the declared one. */
  replay(door: ReplayDoor, timings?: DriverTimings): Promise<{ replayed: Verdict; reason: string }>;
}

/** Every recorded probe with a cassette under `dir` (a harness folder, or a folder of them), in manifest order. */
export async function recordedProbes(dir: string): Promise<RecordedProbe[]> {
  const folders = await harnessFolders(dir);
  if (folders.length === 0) throw new UsageError(`${dir} holds no recorded harness (no manifest.yaml); run bench record first`);
  const out: RecordedProbe[] = [];
  for (const folder of folders) {
    const manifest = await loadManifest(join(folder, 'manifest.yaml'));
    const gateway = manifest.suite === 'hermes-gateway';
    const harness = (manifest.suite ?? 'native-tui') === 'native-tui' ? recordableHarness(manifest.harness) : undefined;
    for (const result of manifest.probes) {
      if (!result.cassette) continue;
      const base = {
        harness: manifest.harness,
        probe: result.probe,
        result: { ...result, cassette: result.cassette },
        file: join(folder, result.cassette),
      };
      const probe = PROBES.find((p) => p.name === result.probe);
      if (harness && probe) out.push({ ...base, replay: (door, timings) => replayProbe({ harness, probe }, door, timings) });
      // WebSocket sessions replay through a socket of their own: the door's fetch has no part in it.
      const replaySuite =
        manifest.suite === 'codex-app-server'
          ? (door: ReplayDoor, turnMs?: number) => {
              const given = door.cassettes?.[0]?.cassette;
              return given ? replayCodexProbe(result.probe, given, turnMs) : replayCodexFile(result.probe, base.file, turnMs);
            }
          : manifest.suite === 'opencode-serve'
            ? (door: ReplayDoor, turnMs?: number) => replayOpenCodeProbe(result.probe, door.baseUrl ?? REPLAY_ORIGIN, door.fetch, turnMs)
            : gateway
              ? (door: ReplayDoor, turnMs?: number) => replayGatewayProbe(result.probe, door.baseUrl ?? REPLAY_ORIGIN, door.fetch, turnMs)
              : undefined;
      if (replaySuite)
        out.push({
          ...base,
          replay: (door, timings) =>
            settle(door, async () => {
              const { verdict, reason } = await replaySuite(door, timings?.turnMs);
              return { replayed: verdict, reason };
            }),
        });
    }
  }
  return out;
}

async function settle<T>(door: ReplayDoor, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } finally {
    await door.done?.();
  }
}

/** Runs one probe of the TypeScript driver against a replay door and reconciles its verdict with the declared one. */
export function replayProbe(
  recorded: { harness: HarnessProfile; probe: Probe },
  door: ReplayDoor,
  timings: DriverTimings = REPLAY_TIMINGS,
): Promise<{ replayed: Verdict; reason: string }> {
  const { harness, probe } = recorded;
  return settle(door, async () => {
    const { observed, reason } = await observeProbe(probe, new SessionDriver(door.baseUrl ?? REPLAY_ORIGIN, harness, timings, door.fetch));
    return { replayed: reconcile(observed, probe.declare(harness).declared), reason };
  });
}

/**
 * Runs every recorded probe of the TypeScript driver against its own cassette
 * through the replayer, offline, and compares the verdict with the manifest's.
 */
export async function replayCheck(
  dir: string,
  options: { fetchFor?: (file: string) => Promise<ReplayDoor>; replay?: ReplayOptions } = {},
): Promise<ReplayCheckRow[]> {
  const rows: ReplayCheckRow[] = [];
  for (const recorded of await recordedProbes(dir)) {
    const { harness, probe, result, file } = recorded;
    const door = options.fetchFor
      ? await options.fetchFor(file)
      : { fetch: cassetteFetch([{ name: result.cassette, cassette: await loadCassette(file) }], options.replay) };
    const { replayed, reason } = await recorded.replay(door);
    rows.push({ harness, probe, expected: result.verdict, replayed, reason, ok: replayed === result.verdict });
  }
  return rows;
}
