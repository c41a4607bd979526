import { z } from 'zod';
import { readConfigSection } from '../config.js';
import { UsageError } from '../errors.js';

export const severitySchema = z.enum(['breaking', 'notable', 'info']);
export type Severity = z.infer<typeof severitySchema>;

/**
 * The `drift` section of `tapedeck.config.json`. Values (ids, timestamps,
 * token counts, text, timings) are never compared, only types and order; these
 * lists take whole fields or event types out as well, or put defaults back.
 */
export const driftConfigSchema = z.strictObject({
  /** Field names or dot paths whose shape changes are ignored (`blocked_on`, `response.usage`). */
  ignoreFields: z.array(z.string()).default([]),
  /** Event types left out of vocabulary, shape and ordering (noise pings). */
  ignoreEventTypes: z.array(z.string()).default(['session.terminal.activity', 'session.heartbeat', 'response.heartbeat']),
  /** The lowest severity that makes the exit code 1. */
  failOn: severitySchema.default('breaking'),
});
export type DriftConfig = z.infer<typeof driftConfigSchema>;

export const DEFAULT_DRIFT_CONFIG: DriftConfig = driftConfigSchema.parse({});

/** Reads the `drift` section of a config file (JSON); a missing default file means the defaults. */
export async function loadDriftConfig(file: string | undefined): Promise<DriftConfig> {
  const result = driftConfigSchema.safeParse((await readConfigSection(file, 'drift')) ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new UsageError(`config ${file ?? 'tapedeck.config.json'} drift.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  return result.data;
}
