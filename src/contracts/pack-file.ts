import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { describeIssue, formatFieldPath } from '../fs/located-yaml.js';
import { findPack } from './catalogue.js';
import type { Pack } from './pack.js';
import { PackFileError } from './pack-file-error.js';
import { badSelector, NO_TURNS, parsePackText, parsePackTexts } from './pack-text.js';
import { ruleSchema } from './rules.js';

const DATA_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
const MODULE_EXTENSIONS = new Set(['.js', '.mjs', '.cjs']);

/** Whether a `--pack` value names a file rather than a pack (built-in names have a slash too: `opencode/events`). */
export const isPackFile = (ref: string) =>
  DATA_EXTENSIONS.has(extname(ref)) || MODULE_EXTENSIONS.has(extname(ref)) || /^(\.{1,2}[\\/]|[\\/]|[A-Za-z]:[\\/])/.test(ref);

/** A pack file's text, or the error that names why it cannot be read. */
function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (cause as Error).message;
    throw new PackFileError('pack_unreadable', { file }, `cannot be read: ${reason}`);
  }
}

/** A pack from a YAML or JSON file, validated; errors name file, line and field. */
export function readPackFile(file: string): Pack {
  return parsePackText(readText(file), file);
}

/** The packs of a YAML or JSON file: one, or several under `packs`. */
export function readPackFiles(file: string): Pack[] {
  return parsePackTexts(readText(file), file);
}

/** Checks what a pack module exports: a name, rules that are rules, payload schemas that parse. */
function checkModulePack(file: string, value: unknown): Pack {
  const bad = (field: string, detail: string) => new PackFileError('pack_invalid', { file, field }, detail);
  if (!value || typeof value !== 'object') throw bad('(export)', 'export a pack as the default export or as `pack`');
  const pack = value as Partial<Pack>;
  if (typeof pack.name !== 'string' || pack.name === '') throw bad('name', 'missing; a pack needs a name');
  if (!Array.isArray(pack.rules) || pack.rules.length === 0) throw bad('rules', 'missing; a pack needs at least one rule');
  pack.rules.forEach((rule, i) => {
    const r = ruleSchema.safeParse(rule);
    if (!r.success) {
      const issue = r.error.issues[0] as z.core.$ZodIssue;
      throw bad(formatFieldPath([`rules`, i, ...issue.path]), describeIssue(issue, rule));
    }
    const sel = badSelector(rule as Record<string, unknown>);
    if (sel) throw bad(formatFieldPath(['rules', i, ...sel.path]), sel.message);
    if (r.data.scope === 'turn' && (pack.turnStarts ?? []).length === 0) throw bad(formatFieldPath(['rules', i, 'scope']), NO_TURNS);
  });
  for (const [type, schema] of Object.entries(pack.payloads ?? {}))
    if (typeof (schema as { safeParse?: unknown })?.safeParse !== 'function')
      throw bad(formatFieldPath(['payloads', type]), 'not a zod schema (a module pack gives zod schemas; a YAML pack, JSON Schema)');
  return { description: '', turnStarts: [], payloads: {}, ...pack } as Pack;
}

/** A pack from a JavaScript module that exports one (default export, or `pack`). */
export async function importPackModule(file: string): Promise<Pack> {
  let mod: { default?: unknown; pack?: unknown };
  try {
    mod = (await import(pathToFileURL(resolve(file)).href)) as typeof mod;
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const reason = code === 'ERR_MODULE_NOT_FOUND' ? 'no such file' : (cause as Error).message.split('\n')[0];
    throw new PackFileError('pack_unreadable', { file }, `cannot be imported: ${reason}`);
  }
  return checkModulePack(file, mod.default ?? mod.pack);
}

/** A pack by built-in name, or from a file: YAML or JSON (read now), or a module (import it with `loadPack`). */
export function resolvePackSync(ref: string | Pack): Pack {
  if (typeof ref !== 'string') return ref;
  if (!isPackFile(ref)) return findPack(ref);
  if (MODULE_EXTENSIONS.has(extname(ref)))
    throw new PackFileError(
      'pack_invalid',
      { file: ref },
      'a JavaScript pack is imported: `await loadPack(file)` first, then pass the pack',
    );
  return readPackFile(ref);
}

/** A pack by built-in name or from a file: `./team-pack.yaml`, `.json`, or a module `./pack.js` exporting one. */
export async function loadPack(ref: string | Pack): Promise<Pack> {
  if (typeof ref === 'string' && isPackFile(ref) && MODULE_EXTENSIONS.has(extname(ref))) return importPackModule(ref);
  return resolvePackSync(ref);
}

/** As `resolvePackSync`, taking a file of several packs whole. */
export function resolvePacksSync(ref: string | Pack): Pack[] {
  return typeof ref === 'string' && isPackFile(ref) && !MODULE_EXTENSIONS.has(extname(ref)) ? readPackFiles(ref) : [resolvePackSync(ref)];
}

/** As `loadPack`, taking a file of several packs whole: what every `--pack` flag reads. */
export async function loadPacks(ref: string | Pack): Promise<Pack[]> {
  if (typeof ref === 'string' && isPackFile(ref) && MODULE_EXTENSIONS.has(extname(ref))) return [await importPackModule(ref)];
  return resolvePacksSync(ref);
}
