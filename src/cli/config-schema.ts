import { z } from 'zod';
import { cassettesConfigSchema, redactionConfigSchema } from '../cassette/index.js';
import { CONFIG_SECTIONS } from '../config.js';
import { driftConfigSchema } from '../drift/index.js';
import { matchConfigSchema } from '../replayer/index.js';

/** `tapedeck.config.json` as a whole: the sections the commands read, and nothing else. */
const configFileSchema = z.strictObject({
  $schema: z.string().optional(),
  redact: redactionConfigSchema.optional(),
  drift: driftConfigSchema.optional(),
  match: matchConfigSchema.optional(),
  cassettes: cassettesConfigSchema.optional(),
});

/** The config file as JSON Schema, for editors (`"$schema": "./node_modules/tapedeck/cassettes/config.schema.json"`). */
export function configJsonSchema(): Record<string, unknown> {
  const keys = Object.keys(configFileSchema.shape).filter((k) => k !== '$schema');
  // The reader and this schema must name the same sections.
  if (keys.join() !== CONFIG_SECTIONS.join()) throw new Error(`config sections disagree: ${keys.join()} vs ${CONFIG_SECTIONS.join()}`);
  return {
    $id: 'urn:tapedeck-bench:schema:config:1',
    ...z.toJSONSchema(configFileSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'tapedeck.config.json',
  };
}
