import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';

/** Refuses an output file that could not be written (its folder missing, or a folder in its place) before any work is done. */
export async function checkOutputFile(flag: string, file: string): Promise<void> {
  if (!(await stat(dirname(file)).catch(() => undefined))?.isDirectory())
    throw new UsageError(`${flag} ${file}: the folder ${dirname(file)} does not exist; create it or name a file in one that does`);
  if ((await stat(file).catch(() => undefined))?.isDirectory()) throw new UsageError(`${flag} ${file} is a folder; name the file to write`);
}
