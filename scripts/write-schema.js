// Regenerates the published JSON Schemas from the zod schemas (run after `npm run build`):
// cassettes/cassette.schema.json for cassettes, cassettes/config.schema.json for tapedeck.config.json.
import { writeFile } from 'node:fs/promises';
import { cassetteJsonSchema } from '../dist/cassette/index.js';
import { configJsonSchema } from '../dist/cli/config-schema.js';

for (const [name, schema] of [
  ['cassette.schema.json', cassetteJsonSchema()],
  ['config.schema.json', configJsonSchema()],
]) {
  const file = new URL(`../cassettes/${name}`, import.meta.url);
  await writeFile(file, `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote ${file.pathname}`);
}
