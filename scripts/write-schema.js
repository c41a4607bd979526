// Regenerates the published JSON Schemas from the zod schemas (run after `npm run build`):
// cassettes/cassette.schema.json for cassettes, cassettes/config.schema.json for tapedeck.config.json,
// cassettes/pack.schema.json for contract pack files (bench verify --pack ./team-pack.yaml).
import { writeFile } from 'node:fs/promises';
import { cassetteJsonSchema } from '../dist/cassette/index.js';
import { configJsonSchema } from '../dist/cli/config-schema.js';
import { packFileJsonSchema } from '../dist/contracts/index.js';

for (const [name, schema] of [
  ['cassette.schema.json', cassetteJsonSchema()],
  ['config.schema.json', configJsonSchema()],
  ['pack.schema.json', packFileJsonSchema()],
]) {
  const file = new URL(`../cassettes/${name}`, import.meta.url);
  await writeFile(file, `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote ${file.pathname}`);
}
