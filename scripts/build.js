// Builds dist/ with tsc, unless it was built from exactly these sources: `npx bench` in a clone installs the
// project itself into npx's cache (npm does that for a project's own bin) and runs `prepare`, which then costs
// a hash of the sources instead of a full compile. `--force` always compiles.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const stamp = join(root, 'dist', '.sources.sha256');

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

const hash = createHash('sha256');
for (const file of [
  ...files(join(root, 'src')),
  join(root, 'tsconfig.json'),
  join(root, 'tsconfig.build.json'),
  join(root, 'package-lock.json'),
]) {
  hash.update(file.slice(root.length)).update('\0').update(readFileSync(file)).update('\0');
}
const digest = hash.digest('hex');
const fresh = existsSync(join(root, 'dist', 'index.js')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest;
if (fresh && !process.argv.includes('--force')) process.exit(0);
// tsc writes its output even when it reports errors: from here until it succeeds, no stamp may vouch for dist.
rmSync(stamp, { force: true });
// A module moved or removed must not linger in dist/ (and in a tarball packed from it).
rmSync(join(root, 'dist'), { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
writeFileSync(stamp, digest);
