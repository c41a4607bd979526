import { join } from 'node:path';
import { type Cassette, loadCassette } from '../../src/cassette/index.js';
import { isCassetteFile, listFiles } from '../../src/fs/list-files.js';

export const CASSETTES = join(import.meta.dirname, '..', '..', 'cassettes');

/** Every committed probe cassette, loaded once per test file. */
export async function committedCassettes(): Promise<{ file: string; cassette: Cassette }[]> {
  const files = await listFiles(CASSETTES, isCassetteFile);
  return Promise.all(files.map(async (file) => ({ file, cassette: await loadCassette(file) })));
}
