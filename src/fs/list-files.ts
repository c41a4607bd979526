import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { UsageError } from '../errors.js';

/** How a walk goes: which names it passes over, which files it keeps, whether it may leave its root through a link. */
export interface WalkOptions {
  /** Whether a file name counts. */
  keep: (name: string) => boolean;
  /** Whether a folder or file name is passed over entirely. */
  skip: (name: string) => boolean;
  /** Whether a symbolic link may lead out of the folder given (a scan's may not: it would read what it was not given). */
  leaveRoot: boolean;
}

/**
 * Files under a path (the path itself when it is a file), sorted. Symbolic
 * links are followed, but a loop, and with `leaveRoot` false a link out of the
 * root, is refused with a one-line error naming the link and the fix.
 */
export async function walkFiles(path: string, options: WalkOptions): Promise<string[]> {
  const info = await stat(path).catch((e: NodeJS.ErrnoException) => {
    throw new UsageError(
      e.code === 'ELOOP' ? `${path}: a symbolic link that leads back to itself; remove it` : `${path}: no such file or folder`,
    );
  });
  if (!info.isDirectory()) return [path];
  const root = await realpath(path);
  const out: string[] = [];
  await walk(path, root, new Set([root]), options, out);
  return out;
}

async function walk(dir: string, root: string, open: Set<string>, options: WalkOptions, out: string[]): Promise<void> {
  for (const name of (await readdir(dir)).sort()) {
    if (options.skip(name)) continue;
    const child = join(dir, name);
    const linked = (await lstat(child)).isSymbolicLink();
    const real = linked ? await linkTarget(child, root, options.leaveRoot) : undefined;
    const info = await stat(child);
    if (info.isDirectory()) {
      const at = real ?? (await realpath(child));
      // A folder that holds itself, through a link, is a loop the walk would never leave.
      if (open.has(at)) throw new UsageError(`${child}: a symbolic link loop (it leads back to ${at}); remove the link`);
      open.add(at);
      await walk(child, root, open, options, out);
      open.delete(at);
    } else if (options.keep(name)) out.push(child);
  }
}

/** Where a link leads, once it is known to end somewhere (and, unless allowed, inside the root). */
async function linkTarget(link: string, root: string, leaveRoot: boolean): Promise<string> {
  let target: string;
  try {
    target = await realpath(link);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new UsageError(`${link}: a symbolic link loop; remove the link`);
    throw new UsageError(`${link}: a symbolic link to nothing (${code}); remove it or make it point at a file`);
  }
  const inside = target === root || target.startsWith(`${root}${sep}`);
  if (!inside && !leaveRoot) {
    const shown = relative(root, target).startsWith('..') ? target : relative(root, target);
    throw new UsageError(
      `${link} links to ${shown}, outside the folder given: it is not followed; give that path itself, or remove the link`,
    );
  }
  return target;
}

/** Files under a path, skipping hidden entries and node_modules; `keep` decides which file names count. */
export function listFiles(path: string, keep: (name: string) => boolean): Promise<string[]> {
  return walkFiles(path, { keep, skip: (name) => name.startsWith('.') || name === 'node_modules', leaveRoot: true });
}

/** Cassette files: YAML, not a manifest. */
export const isCassetteFile = (name: string) => /\.ya?ml$/.test(name) && name !== 'manifest.yaml';
