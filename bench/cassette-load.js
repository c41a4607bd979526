import { parseCassette, serializeCassette } from '../dist/cassette/index.js';
import { generateCassette } from './generate-cassette.js';
import { fmt, medianPair } from './measure.js';

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
  const ratio = loadMs / jsonMs;
  console.log(`cassette load, ${interactions} interactions (${(text.length / 1e6).toFixed(1)} MB YAML):`);
  console.log(`  JSON.parse of the same content  ${fmt(jsonMs)} ms`);
  console.log(`  parseCassette (read + validate) ${fmt(loadMs)} ms`);
  console.log(`  ratio ${fmt(ratio)}x (target <= 3; Polly loads a HAR at 3.1x)`);
  return { jsonMs, loadMs, ratio };
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCassetteLoad();
