import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { cassetteJsonSchema } from '../../src/cassette/index.js';

describe('published JSON Schema', () => {
  it('matches the zod schema (run `npm run schema` after changing it)', async () => {
    const committed = JSON.parse(await readFile(new URL('../../cassettes/cassette.schema.json', import.meta.url), 'utf8'));
    expect(committed).toEqual(cassetteJsonSchema());
  });
});
