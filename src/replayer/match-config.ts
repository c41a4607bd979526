import { z } from 'zod';
import { findConfigFile, readConfigSection } from '../config.js';
import { UsageError } from '../errors.js';

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

/**
 * The `match` section of `tapedeck.config.json` (the nearest, or `file`), checked; none when absent. Every door
 * reads it the same way: `bench replay`, `useCassette`, `cassetteHandlers` and `cassetteDispatcher`.
 */
export async function loadMatchConfig(file?: string): Promise<MatchConfig> {
  const result = matchConfigSchema.safeParse((await readConfigSection(file, 'match')) ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = (await findConfigFile(file)) ?? 'tapedeck.config.json';
  throw new UsageError(`config ${where} match.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
}
