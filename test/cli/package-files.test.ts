import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join, normalize, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

// What `npm pack` would publish: every source map's sources are in the tarball too, so a stack trace mapped
// through them (node --enable-source-maps, a debugger) points at a file the user has.
it('ships the source every shipped source map names', async () => {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const files = new Set((JSON.parse(stdout) as [{ files: { path: string }[] }])[0].files.map((f) => normalize(f.path)));
  const maps = [...files].filter((f) => f.endsWith('.map'));
  expect(maps.length).toBeGreaterThan(100);
  const missing: string[] = [];
  for (const map of maps) {
    const { sources } = JSON.parse(await readFile(join(ROOT, map), 'utf8')) as { sources: string[] };
    for (const source of sources) {
      const shipped = normalize(join(dirname(map), source));
      if (!files.has(shipped)) missing.push(`${map} → ${shipped}`);
    }
  }
  expect(missing).toEqual([]);
  // The schemas editors and validators are pointed at are exported and published.
  for (const schema of ['cassette', 'config', 'pack']) expect(files.has(`cassettes/${schema}.schema.json`)).toBe(true);
}, 120_000);
