import { relative } from 'node:path';
import { z } from 'zod';
import { findConfigFileSync, loadRedactionConfigSync, readConfigSectionSync } from '../config.js';
import { UsageError } from '../errors.js';
import type { ReplayOptions } from './answer-types.js';

/**
 * The `match` section of `tapedeck.config.json`: the library's matching
 * options that are data, so `bench replay` matches as `useCassette` does.
 */
export const matchConfigSchema = z.strictObject({
  /** Body fields to ignore, as dot paths; `*` matches any key or index (`data.*.id`). */
  ignoreBodyPaths: z.array(z.string().min(1)).default([]),
  /** Query parameters to ignore. */
  ignoreQuery: z.array(z.string().min(1)).default([]),
  /** Headers that must match too (all others are ignored). */
  matchHeaders: z.array(z.string().min(1)).default([]),
});
export type MatchConfig = z.infer<typeof matchConfigSchema>;
type MatchSetting = keyof MatchConfig;

/**
 * The `match` section of `tapedeck.config.json` (the nearest, or `file`), checked; none when absent. Every door
 * reads it the same way: `bench replay`, `useCassette`, `cassetteHandlers` and `cassetteDispatcher`.
 */
export async function loadMatchConfig(file?: string): Promise<MatchConfig> {
  return loadMatchConfigSync(file);
}

/** `loadMatchConfig`, at once: the doors read it as they are made. */
export function loadMatchConfigSync(file?: string): MatchConfig {
  const result = matchConfigSchema.safeParse(readConfigSectionSync(file, 'match') ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = findConfigFileSync(file) ?? 'tapedeck.config.json';
  throw new UsageError(`config ${where} match.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
}

/** Where each matching setting of a door comes from, so a miss's advice names the place the user can change. */
export type MatchPlaces = (setting: MatchSetting) => string;

/**
 * A door's options with the config file's `match` and `redact` sections under them: what is passed in code
 * wins (the advice then names the option, not the file). `config: false` reads no file.
 */
export function withMatchConfig<T extends ReplayOptions>(options: T): { options: T; places: MatchPlaces } {
  if (options.config === false) return { options, places: (setting) => `the ${setting} option of the replay` };
  const file = findConfigFileSync(options.config);
  const match = loadMatchConfigSync(options.config);
  const redact = options.redact ?? loadRedactionConfigSync(options.config);
  const merged = { ...match, redact, ...options };
  const shown = file ? relative(process.cwd(), file) || file : undefined;
  const places: MatchPlaces = (setting) =>
    options[setting] !== undefined
      ? `the ${setting} option passed in code (it wins over ${shown ?? 'tapedeck.config.json'})`
      : shown
        ? `the "match" section of ${shown}`
        : `a "match" section in tapedeck.config.json (none was found from ${process.cwd()}), or the ${setting} option`;
  return { options: merged, places };
}
