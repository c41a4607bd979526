import { readdir, stat } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { type Cassette, loadCassette } from '../cassette/index.js';
import { UsageError } from '../errors.js';
import { isCassetteFile, listFiles } from '../fs/list-files.js';
import { loadManifest } from '../manifest/manifest.js';
import type { NamedCassette } from './engine.js';

async function cassetteFiles(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).sort();
  // A recorded harness folder replays in the order its probes ran.
  if (names.includes('manifest.yaml')) {
    const manifest = await loadManifest(join(dir, 'manifest.yaml'));
    return manifest.probes.flatMap((p) => (p.cassette ? [join(dir, p.cassette)] : []));
  }
  return listFiles(dir, isCassetteFile);
}

/** Loads a cassette file, or every cassette under a folder, as one named set. */
export async function loadCassetteSet(path: string): Promise<NamedCassette[]> {
  let isDir: boolean;
  try {
    isDir = (await stat(path)).isDirectory();
  } catch {
    throw new UsageError(`--cassette ${path}: no such file or folder`);
  }
  const files = isDir ? await cassetteFiles(path) : [path];
  if (files.length === 0) throw new UsageError(`${path} holds no cassette (*.yaml); record one with bench record or bench proxy`);
  const out: NamedCassette[] = [];
  for (const file of files) {
    const cassette: Cassette = await loadCassette(file);
    out.push({ name: isDir ? relative(path, file) : basename(file), cassette, file });
  }
  return out;
}
