import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../cassette/index.js';
import { UsageError } from '../errors.js';
import type { UnusedEntry } from './answer-types.js';

/**
 * What one replay run used of each cassette file it loaded, for `bench prune`: the file, its bytes' sha256 when
 * loaded (a prune refuses a file that changed since), how many interactions it held and the seqs some request took.
 */
export const usageFileSchema = z.strictObject({
  tapedeckUsage: z.literal(1),
  cassettes: z.array(
    z.strictObject({
      file: z.string().min(1),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      interactions: z.number().int().nonnegative(),
      used: z.array(z.number().int().positive()),
    }),
  ),
});
export type UsageFile = z.infer<typeof usageFileSchema>;
export type CassetteUsage = UsageFile['cassettes'][number];

/** A cassette of a set as usage counts it: the file it was loaded from, if any. */
export interface UsageSource {
  file?: string | undefined;
  interactions: number;
}

/** The sha256 of a cassette file's bytes: what a usage record was taken against. */
export function fileSha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/**
 * The usage of a set: one record per cassette loaded from a file (objects made in code have no file to prune).
 * `used` lists, per position in the set, the seqs some request took.
 */
export function usageOf(sources: readonly UsageSource[], used: ReadonlyMap<number, readonly number[]>): UsageFile {
  const cassettes: CassetteUsage[] = [];
  for (const [at, source] of sources.entries()) {
    if (!source.file) continue;
    const file = resolve(source.file);
    cassettes.push({
      file,
      sha256: fileSha256(file),
      interactions: source.interactions,
      used: [...(used.get(at) ?? [])].sort((a, b) => a - b),
    });
  }
  return { tapedeckUsage: 1, cassettes };
}

/** Writes what the engines used, merged, to `file` (its folder made): `bench prune --usage` reads it. */
export async function writeUsageFile(file: string, ...usages: UsageFile[]): Promise<void> {
  await mkdir(dirname(resolve(file)), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(mergeUsage(usages), null, 2)}\n`);
}

/** Several runs' usage as one: per file, the union of what each used. Runs that saw the file differ are refused. */
export function mergeUsage(usages: readonly UsageFile[], where: (n: number) => string = (n) => `usage ${n + 1}`): UsageFile {
  const byFile = new Map<string, CassetteUsage & { from: string }>();
  for (const [n, usage] of usages.entries()) {
    for (const c of usage.cassettes) {
      const seen = byFile.get(c.file);
      if (!seen) {
        byFile.set(c.file, { ...c, used: [...c.used], from: where(n) });
        continue;
      }
      if (seen.sha256 !== c.sha256)
        throw new UsageError(
          `${c.file} was not the same file in ${seen.from} and ${where(n)}: run the tests again on one version, then prune`,
        );
      seen.used = [...new Set([...seen.used, ...c.used])].sort((a, b) => a - b);
    }
  }
  return { tapedeckUsage: 1, cassettes: [...byFile.values()].map(({ from: _from, ...c }) => c) };
}

/** Unused (or used) recordings as a message lists them: where each is, and what it answers. */
export function describeUnused(entries: readonly UnusedEntry[]): string {
  return entries.map((u) => `${u.cassette} #${u.seq} ${u.method} ${u.path}`).join(', ');
}
