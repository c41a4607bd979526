import { readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { findNearestSync } from '../fs/find-nearest.js';

/**
 * The `cassettes` section of `tapedeck.config.json`: `schema`, the cassette JSON Schema's path (relative to the
 * config file), makes every cassette the tool writes name it on its second line, for YAML editors.
 */
export const cassettesConfigSchema = z.strictObject({
  /** e.g. `node_modules/tapedeck-bench/cassettes/cassette.schema.json`. */
  schema: z.string().min(1).optional(),
});

/**
 * The `# yaml-language-server: $schema=…` line for a cassette written at `file`, pointing at the schema the
 * nearest config names, relative to the cassette (portable: no machine path); empty when none is named.
 */
export function editorSchemaLine(file: string): string {
  const config = findNearestSync(['tapedeck.config.json'], dirname(resolve(file)));
  if (!config) return '';
  let section: unknown;
  try {
    section = (JSON.parse(readFileSync(config, 'utf8')) as { cassettes?: unknown })?.cassettes;
  } catch {
    return ''; // the commands' own config readers report a file that is no JSON, in their words
  }
  if (section === undefined) return '';
  const parsed = cassettesConfigSchema.safeParse(section);
  if (!parsed.success)
    throw new UsageError(`config ${config} cassettes.${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message}`);
  if (!parsed.data.schema) return '';
  const schema = resolve(dirname(config), parsed.data.schema);
  const path = relative(dirname(resolve(file)), schema)
    .split(sep)
    .join('/');
  return `# yaml-language-server: $schema=${path}\n`;
}
