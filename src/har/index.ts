export { cassetteToHar, sseItemText } from './export.js';
export { HarError, type HarImport, harToCassette, parseHar } from './import.js';
export { type Har, type HarEntry, harSchema } from './schema.js';
