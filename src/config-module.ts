import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isRecord } from './cassette/index.js';
import { findNearest } from './config.js';
import { UsageError } from './errors.js';

/** The code config a project may keep beside its cassettes, in the order one is looked for. */
export const CONFIG_MODULE_NAMES = ['tapedeck.config.ts', 'tapedeck.config.mts', 'tapedeck.config.js', 'tapedeck.config.mjs'];

/** What a `tapedeck.config.*` module gives: its path, and the families it adds (checked by the registry). */
export interface ConfigModule {
  path: string;
  families: readonly unknown[];
}

/** TypeScript is loaded through tsx's hooks (both module systems, as a .ts file may be either), registered once. */
let typescriptHooks: Promise<void> | undefined;
function loadTypeScript(): Promise<void> {
  typescriptHooks ??= (async () => {
    const [esm, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
    esm.register();
    cjs.register();
  })();
  return typescriptHooks;
}

/**
 * Imports the nearest `tapedeck.config.{ts,mts,js,mjs}` (from the working
 * folder up to the repository root), or `file`; none found gives undefined.
 * Its default export is `{ families: [...] }`.
 */
export async function loadConfigModule(file?: string, from = process.cwd()): Promise<ConfigModule | undefined> {
  const path = file ?? (await findNearest(CONFIG_MODULE_NAMES, from));
  if (!path) return undefined;
  if (!CONFIG_MODULE_NAMES.some((n) => extname(n) === extname(path)))
    throw new UsageError(`config ${path}: a code config is .ts, .mts, .js or .mjs (the JSON config keeps its own sections)`);
  if (/\.m?ts$/.test(path)) await loadTypeScript();
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (err) {
    // esbuild puts the file, line and cause after its first line: one line of all of it.
    const reason = (err as Error).message.replace(/\s+/g, ' ').trim().slice(0, 300);
    throw new UsageError(`config ${path}: cannot be loaded (${reason})`);
  }
  // A .ts file of a CommonJS package comes through the CommonJS hooks, compiled with an __esModule mark: its default
  // export is one level down.
  const exported = isRecord(mod.default) && mod.default.__esModule === true ? mod.default.default : mod.default;
  if (!isRecord(exported)) throw new UsageError(`config ${path}: export default an object, e.g. export default { families: [myFamily] }`);
  const families = exported.families ?? [];
  if (!Array.isArray(families))
    throw new UsageError(`config ${path}: families must be a list of families (defineFamily(...)), got ${typeof families}`);
  return { path, families };
}
