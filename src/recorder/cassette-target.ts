import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { loadCassette } from '../cassette/index.js';
import { UsageError } from '../errors.js';

/**
 * Checks, before anything is recorded, that a cassette can be written at
 * `file`: not a folder, in a folder that exists, and not some other file
 * (unless `force`). Says whether a cassette is already there, so a run that
 * records nothing can leave it alone.
 */
export async function checkCassetteTarget(file: string, options: { force?: boolean } = {}): Promise<{ existing: boolean }> {
  const parent = dirname(file);
  const folder = await stat(parent).catch(() => undefined);
  if (!folder)
    throw new UsageError(`--cassette ${file}: the folder ${parent} does not exist; create it first, or name a file in an existing folder`);
  if (!folder.isDirectory()) throw new UsageError(`--cassette ${file}: ${parent} is not a folder`);
  const here = await stat(file).catch(() => undefined);
  if (!here) return { existing: false };
  if (here.isDirectory())
    throw new UsageError(`--cassette ${file} is a folder; name a file in it, such as ${file.replace(/\/+$/, '')}/session.yaml`);
  if (!here.isFile()) throw new UsageError(`--cassette ${file} is not a regular file; name a .yaml file`);
  if (options.force) return { existing: false };
  try {
    await loadCassette(file);
  } catch (err) {
    throw new UsageError(
      `--cassette ${file} exists and is not a tapedeck cassette (${(err as Error).message.split('\n')[0]}); pass --force to overwrite it, or name another file`,
    );
  }
  return { existing: true };
}
