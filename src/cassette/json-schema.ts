import { z } from 'zod';
import { cassetteSchema } from './schema.js';

/** The cassette schema as JSON Schema, for editors and other languages. */
export function cassetteJsonSchema(): Record<string, unknown> {
  return {
    $id: 'urn:tapedeck-bench:schema:cassette:1',
    ...z.toJSONSchema(cassetteSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'tapedeck cassette v1',
  };
}
