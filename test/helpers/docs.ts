import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** The README and every guide under docs/guide/, each with its path: where the commands and examples users copy live. */
export async function userDocs(): Promise<{ file: string; text: string }[]> {
  const guides = (await readdir(join(ROOT, 'docs', 'guide'))).filter((f) => f.endsWith('.md')).sort();
  const files = ['README.md', ...guides.map((g) => join('docs', 'guide', g))];
  return Promise.all(files.map(async (file) => ({ file, text: await readFile(join(ROOT, file), 'utf8') })));
}
