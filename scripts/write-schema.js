// Regenerates cassettes/cassette.schema.json from the zod schema (run after `npm run build`).
import { writeFile } from 'node:fs/promises';
import { cassetteJsonSchema } from '../dist/cassette/index.js';

const file = new URL('../cassettes/cassette.schema.json', import.meta.url);
await writeFile(file, `${JSON.stringify(cassetteJsonSchema(), null, 2)}\n`);
console.log(`wrote ${file.pathname}`);
