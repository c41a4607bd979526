// The floor under `bench verify` on this machine: a Node process that reads a
// cassette and JSON.parses each event's data, and does nothing else (no YAML,
// no validation, no checking, no report). No implementation in Node goes faster.
import { readFileSync } from 'node:fs';

const text = readFileSync(process.argv[2], 'utf8');
const key = "\n            data: '";
let parsed = 0;
for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + 1)) {
  const end = text.indexOf('\n', at + key.length);
  if (JSON.parse(text.slice(at + key.length, end - 1).replaceAll("''", "'")) !== null) parsed++;
}
if (parsed === 0) throw new Error(`no event data found in ${process.argv[2]}`);
