import { z } from 'zod';

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
