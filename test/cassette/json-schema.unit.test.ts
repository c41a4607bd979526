import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { cassetteJsonSchema } from '../../src/cassette/index.js';
import { configJsonSchema } from '../../src/cli/config-schema.js';

const committed = async (name: string) => JSON.parse(await readFile(new URL(`../../cassettes/${name}`, import.meta.url), 'utf8'));

describe('published JSON Schema', () => {
  it('matches the zod schema (run `npm run schema` after changing it)', async () => {
    expect(await committed('cassette.schema.json')).toEqual(cassetteJsonSchema());
  });

  it('of tapedeck.config.json matches the config the commands read, and refuses unknown sections and fields', async () => {
    const schema = await committed('config.schema.json');
    expect(schema).toEqual(configJsonSchema());
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(['$schema', 'redact', 'drift', 'match', 'cassettes']);
    expect(schema.properties.redact.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties.redact.properties)).toEqual(['headers', 'query', 'jsonFields', 'paths', 'patterns', 'exempt']);
  });
});

describe('the schemas as a package export', () => {
  it('each resolves through the package and names itself with an $id', async () => {
    for (const name of ['cassette', 'config', 'pack']) {
      const { default: schema } = await import(`tapedeck-bench/schemas/${name}.schema.json`, { with: { type: 'json' } });
      expect(schema.$id).toBe(`urn:tapedeck-bench:schema:${name}:1`);
    }
  });
});
