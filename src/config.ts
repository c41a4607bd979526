import { readFile } from 'node:fs/promises';
import { type RedactionConfig, redactionConfigSchema } from './cassette/index.js';
import { UsageError } from './errors.js';

/** Reads a JSON config file's section; a missing default file gives undefined. */
export async function readConfigSection(file: string | undefined, section: string): Promise<unknown> {
  const path = file ?? 'tapedeck.config.json';
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (!file && (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`config ${path}: cannot be read (${(err as Error).message})`);
  }
  try {
    return (JSON.parse(text) as Record<string, unknown> | null)?.[section];
  } catch (err) {
    throw new UsageError(`config ${path}: not valid JSON (${(err as Error).message})`);
  }
}

/** The `redact` section of `tapedeck.config.json` (or `file`), checked; defaults when absent. */
export async function loadRedactionConfig(file?: string): Promise<RedactionConfig> {
  const raw = await readConfigSection(file, 'redact');
  const result = redactionConfigSchema.safeParse(raw ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new UsageError(`config ${file ?? 'tapedeck.config.json'} redact.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  for (const p of result.data.patterns) {
    try {
      new RegExp(p);
    } catch {
      throw new UsageError(`config ${file ?? 'tapedeck.config.json'} redact.patterns: ${JSON.stringify(p)} is not a regular expression`);
    }
  }
  return result.data;
}
