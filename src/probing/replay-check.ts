import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { loadCassette } from '../cassette/index.js';
import { UsageError } from '../errors.js';
import { familyOfManifest } from '../families/index.js';
import type { ReplayDoor } from '../families/kit/index.js';
import { pickShard, type Shard } from '../fs/shard.js';
import { loadManifest, type ProbeResult, type Verdict } from '../manifest/index.js';
import type { ReplayOptions, UsageFile } from '../replayer/index.js';
import { cassetteFetch } from './replay-door.js';

export interface ReplayCheckRow {
  harness: string;
  probe: string;
  /** The cassette replayed. */
  file: string;
  expected: Verdict;
  replayed: Verdict;
  reason: string;
  ok: boolean;
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

/** One recorded probe of a harness folder: its manifest row, its cassette, and how to run its own client against a replay. */
export interface RecordedProbe {
  /** The manifest's harness (the folder's name for families without variants). */
  harness: string;
  probe: string;
  result: ProbeResult & { cassette: string };
  file: string;
  /** Runs the probe's own client against a replay door and reconciles its verdict with the declared one. */
  replay(door: ReplayDoor, pace?: 'replay' | 'fuzz'): Promise<{ replayed: Verdict; reason: string }>;
}

/**
 * Every recorded probe with a cassette under `dir` (a harness folder, or a
 * folder of them), in manifest order; with a shard, only that shard's cassettes.
 */
export async function recordedProbes(dir: string, shard?: Shard): Promise<RecordedProbe[]> {
  const folders = await harnessFolders(dir);
  if (folders.length === 0) throw new UsageError(`${dir} holds no recorded harness (no manifest.yaml); run bench record first`);
  const out: RecordedProbe[] = [];
  for (const folder of folders) {
    const file = join(folder, 'manifest.yaml');
    const manifest = await loadManifest(file);
    const family = familyOfManifest(manifest, file);
    for (const result of manifest.probes) {
      if (!result.cassette) continue;
      const recorded = { harness: manifest.harness, probe: result.probe, file: join(folder, result.cassette) };
      out.push({
        ...recorded,
        result: { ...result, cassette: result.cassette },
        replay: (door, pace) => family.replay(recorded, door, pace),
      });
    }
  }
  return pickShard(out, shard, (p) => p.file);
}

/**
 * Runs every recorded probe's own client against its own cassette through the
 * replayer, offline, and compares the verdict with the manifest's.
 */
export async function replayCheck(
  dir: string,
  options: {
    fetchFor?: (file: string) => Promise<ReplayDoor>;
    replay?: ReplayOptions;
    shard?: Shard;
    onRow?: (row: ReplayCheckRow, done: number, total: number) => void;
    /** What each probe's replay used of its cassette (`bench replay-check --usage`, for `bench prune`). */
    onUsage?: (usage: UsageFile) => void;
  } = {},
): Promise<ReplayCheckRow[]> {
  const rows: ReplayCheckRow[] = [];
  const probes = await recordedProbes(dir, options.shard);
  for (const recorded of probes) {
    const { harness, probe, result, file } = recorded;
    const own = options.fetchFor
      ? undefined
      : cassetteFetch([{ name: result.cassette, cassette: await loadCassette(file), file }], options.replay);
    const door = own ? { fetch: own } : await (options.fetchFor as (file: string) => Promise<ReplayDoor>)(file);
    const { replayed, reason } = await recorded.replay(door);
    if (own) options.onUsage?.(own.engine.usage());
    const row = { harness, probe, file, expected: result.verdict, replayed, reason, ok: replayed === result.verdict };
    rows.push(row);
    options.onRow?.(row, rows.length, probes.length);
  }
  return rows;
}
