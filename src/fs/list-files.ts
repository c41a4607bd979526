import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';

/**
 * Files under a path (the path itself when it is a file), sorted, skipping
 * hidden entries and node_modules; `keep` decides which file names count.
 */
export async function listFiles(path: string, keep: (name: string) => boolean): Promise<string[]> {
  const info = await stat(path).catch(() => {
    throw new UsageError(`${path}: no such file or folder`);
  });
  if (!info.isDirectory()) return [path];
  const out: string[] = [];
  for (const name of (await readdir(path)).sort()) {
    if (name.startsWith('.') || name === 'node_modules') continue;
    const child = join(path, name);
    if ((await stat(child)).isDirectory()) out.push(...(await listFiles(child, keep)));
    else if (keep(name)) out.push(child);
  }
  return out;
}

/** Cassette files: YAML, not a manifest. */
export const isCassetteFile = (name: string) => /\.ya?ml$/.test(name) && name !== 'manifest.yaml';
