import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { loadCassette } from '../cassette/index.js';
import { UsageError } from '../errors.js';
import type { UnusedEntry } from './answer-types.js';
import { fileSha256, mergeUsage, type UsageFile, usageFileSchema } from './usage.js';

/** What a prune does to one cassette file: the recordings no run used, and how many it keeps. */
export interface PrunePlan {
  file: string;
  remove: UnusedEntry[];
  kept: number;
}

/** The usage records under the paths given (files, or folders of `*.json`), merged as one run. */
export async function readUsage(paths: readonly string[]): Promise<UsageFile> {
  const files: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info)
      throw new UsageError(
        `--usage ${path}: no such file or folder; write one with bench replay --usage, replay-check --usage or useCassette's usage option`,
      );
    if (!info.isDirectory()) files.push(path);
    else
      files.push(
        ...(await readdir(path))
          .filter((n) => n.endsWith('.json'))
          .sort()
          .map((n) => join(path, n)),
      );
  }
  if (files.length === 0)
    throw new UsageError(`--usage ${paths.join(', ')}: holds no usage file (*.json); run the tests with usage on first`);
  const usages: UsageFile[] = [];
  for (const file of files) usages.push(await readUsageFile(file));
  return mergeUsage(usages, (n) => files[n] as string);
}

async function readUsageFile(file: string): Promise<UsageFile> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--usage ${file}: not a usage file (${(err as Error).message})`);
  }
  const result = usageFileSchema.safeParse(parsed);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new UsageError(`--usage ${file}: not a usage file (${issue?.path.join('.') || 'top'}: ${issue?.message ?? 'invalid'})`);
}

/**
 * Per cassette the usage names (only those under `only`, when given), the recordings to remove. A file that
 * changed since its run is refused: the seqs the run saw may no longer be the ones it holds.
 */
export async function planPrune(usage: UsageFile, only?: readonly string[]): Promise<PrunePlan[]> {
  const within = only?.map((p) => resolve(p));
  const plans: PrunePlan[] = [];
  for (const c of usage.cassettes) {
    if (within && !within.some((p) => c.file === p || !relative(p, c.file).startsWith('..'))) continue;
    const now = await stat(c.file).catch(() => undefined);
    if (!now) throw new UsageError(`${c.file}: named by the usage but gone; remove it from the usage or record it again`);
    if (fileSha256(c.file) !== c.sha256)
      throw new UsageError(
        `${relative(process.cwd(), c.file)} changed since the run that wrote its usage: run the tests again, then prune`,
      );
    const used = new Set(c.used);
    const shown = relative(process.cwd(), c.file) || c.file;
    const remove = (await loadCassette(c.file)).interactions
      .filter((i) => !used.has(i.seq))
      .map((i) => ({ cassette: shown, seq: i.seq, method: i.request.method, path: i.request.path }));
    plans.push({ file: c.file, remove, kept: c.interactions - remove.length });
  }
  return plans;
}
