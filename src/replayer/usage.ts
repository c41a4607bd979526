import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../cassette/index.js';
import { UsageError } from '../errors.js';
import type { Entry, NamedCassette, UnusedEntry } from './answer-types.js';
import { isMutating } from './match-request.js';

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

/** The sha256 of a cassette file's bytes: what a usage record was taken against. */
export function fileSha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/**
 * The usage of a set: one record per cassette loaded from a file (objects made in code have no file to prune),
 * with the seqs of the entries some request took.
 */
export function usageOf(set: readonly NamedCassette[], used: readonly Entry[]): UsageFile {
  const seqs = new Map<number, number[]>();
  for (const e of used) seqs.set(e.index, [...(seqs.get(e.index) ?? []), e.interaction.seq]);
  const cassettes: CassetteUsage[] = [];
  for (const [at, { file, cassette }] of set.entries()) {
    if (!file) continue;
    const path = resolve(file);
    const taken = [...(seqs.get(at) ?? [])].sort((a, b) => a - b);
    cassettes.push({ file: path, sha256: fileSha256(path), interactions: cassette.interactions.length, used: taken });
  }
  return { tapedeckUsage: 1, cassettes };
}

/**
 * The entries some request was answered with. A read's answers count together: a repeated read served once
 * used its recordings (the later ones are what it would get on a slower run), as `unusedEntries` counts them.
 */
export function usedEntries(groups: readonly Entry[][]): Entry[] {
  const out: Entry[] = [];
  for (const group of groups) {
    const read = !isMutating(group[0]?.interaction.request.method ?? 'GET');
    const anyServed = group.some((e) => e.served);
    for (const e of group) if (e.served || (read && anyServed)) out.push(e);
  }
  return out;
}

/** Recorded interactions the client never asked for (reads skipped for a later due answer are not counted). */
export function unusedEntries(groups: readonly Entry[][]): UnusedEntry[] {
  const used = new Set(usedEntries(groups));
  const out: UnusedEntry[] = [];
  for (const group of groups)
    for (const e of group)
      if (!used.has(e))
        out.push({ cassette: e.name, seq: e.interaction.seq, method: e.interaction.request.method, path: e.interaction.request.path });
  return out.sort((a, b) => (a.cassette < b.cassette ? -1 : a.cassette > b.cassette ? 1 : a.seq - b.seq));
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
