import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { writeCanonicalYaml } from './canonical-yaml.js';
import { bodyDigest, headerLine } from './digest.js';
import { CassetteError } from './errors.js';
import { type RedactionConfig, redactCassette } from './redact.js';
import { type Cassette, cassetteSchema } from './schema.js';

/**
 * Serialises a cassette to canonical YAML after redaction: the same cassette
 * gives the same bytes. Placeholders are the recorder's job (`makePortable`, once, at capture).
 */
export function serializeCassette(cassette: Cassette, redact?: RedactionConfig): string {
  const clean = cassetteSchema.parse(redactCassette(cassette, redact));
  const body = writeCanonicalYaml(clean as unknown as Record<string, unknown>);
  // The digest lets a later load skip re-validating what was validated here.
  return headerLine(bodyDigest(body)) + body;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes temp files a killed writer left beside `file` (their pid is gone). */
async function removeStaleTemps(dir: string, base: string): Promise<void> {
  const prefix = `.${base}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pid = Number(name.slice(prefix.length).split('.')[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) await unlink(join(dir, name)).catch(() => {});
  }
}

/**
 * Writes text next to `file` and renames it into place after fsync, so a crash
 * leaves either the old file or the new one, never half of one.
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const dir = dirname(file);
  const base = basename(file);
  const temp = join(dir, `.${base}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    await removeStaleTemps(dir, base);
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (cause) {
    await unlink(temp).catch(() => {});
    throw new CassetteError('cassette_unwritable', { file }, `cannot be written: ${(cause as Error).message}`, { cause });
  }
  // Persist the rename itself; not every file system lets a folder be fsynced.
  const dirHandle = await open(dir, 'r').catch(() => undefined);
  if (dirHandle)
    await dirHandle
      .sync()
      .catch(() => {})
      .finally(() => dirHandle.close());
}

/** Redacts, serialises and atomically writes a cassette. */
export async function writeCassetteAtomic(file: string, cassette: Cassette, redact?: RedactionConfig): Promise<void> {
  await writeFileAtomic(file, serializeCassette(cassette, redact));
}
