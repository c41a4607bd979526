import { loadavg } from 'node:os';
import { stringify } from 'yaml';
import { parseCassette, serializeCassette } from '../dist/cassette/index.js';
import { generateCassette } from './generate-cassette.js';
import { fmt, fmtRange, medianPair, ratioRange } from './measure.js';

/** Loads a 10,000-interaction cassette and compares with JSON.parse of the same content. */
export async function benchCassetteLoad({ interactions = 10_000 } = {}) {
  const text = serializeCassette(generateCassette(interactions));
  const json = JSON.stringify(parseCassette(text));
  // Measured in alternation, so machine noise falls on both alike.
  const [jsonMs, loadMs] = await medianPair(
    () => JSON.parse(json),
    () => parseCassette(text),
    { runs: 21, warmup: 3 },
  );
  const ratio = await ratioRange(
    () => JSON.parse(json),
    () => parseCassette(text),
    { rounds: 4, runs: 7 },
  );
  console.log(`cassette load, ${interactions} interactions (${(text.length / 1e6).toFixed(1)} MB YAML):`);
  console.log(`  JSON.parse of the same content  ${fmt(jsonMs)} ms`);
  console.log(`  parseCassette (read + validate) ${fmt(loadMs)} ms`);
  console.log(`  ratio ${fmtRange(ratio)} over 4 interleaved rounds (the loader alone; with the engine, from disk, see the next figure)`);
  // A hand edit breaks the digest; an editor or a YAML library rewrites the style: neither may make a cassette unusable.
  const edited = text.replace('reply 1', 'reply X');
  const reformatted = stringify(JSON.parse(json), { lineWidth: 0 });
  const editedRange = await ratioRange(
    () => JSON.parse(json),
    () => parseCassette(edited),
    { rounds: 3, runs: 5 },
  );
  const reformattedRange = await ratioRange(
    () => JSON.parse(json),
    () => parseCassette(reformatted),
    { rounds: 3, runs: 3 },
  );
  console.log(`  one character edited by hand     ${fmtRange(editedRange)} JSON.parse over 3 interleaved rounds`);
  console.log(
    `  re-written by the yaml library   ${fmtRange(reformattedRange)} JSON.parse over 3 interleaved rounds (target <= 10; load average ${loadavg()[0].toFixed(2)})`,
  );
  return { jsonMs, loadMs, ratio, edited: editedRange, reformatted: reformattedRange };
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCassetteLoad();
