import { z } from 'zod';
import { cassetteSchema } from './schema.js';

/** The cassette schema as JSON Schema, for editors and other languages. */
export function cassetteJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(cassetteSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'tapedeck cassette v1',
  };
}
