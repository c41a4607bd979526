// `npm run bench`: every performance benchmark, one after another, each in a
// fresh process as a user's test run would be: a figure must not pay for the
// heap and the warm caches an earlier benchmark left behind.
import { spawnSync } from 'node:child_process';

const PARTS = [
  ['proxy-overhead.js', 'benchProxyOverhead'],
  ['cassette-load.js', 'benchCassetteLoad'],
  ['open-replay.js', 'benchOpenReplay'],
  ['doors.js', 'benchDoors'],
  ['replay.js', 'benchReplay'],
  ['contracts.js', 'benchContracts', 'benchScopedContracts', 'benchVerifyEndToEnd'],
  ['sse-parse.js', 'benchSseParse'],
  ['load-streams.js', 'benchLoad'],
  ['save-memory.js', 'benchSaveMemory'],
  ['journal-overhead.js', 'benchJournalOverhead', 'benchFreshSecrets'],
  ['big-recordings.js', 'benchBigRecordings'],
];

console.log(`tapedeck benchmarks on node ${process.version}, ${new Date().toISOString()}\n`);
const only = process.argv.slice(2);
let failed = 0;
for (const [file, ...exports] of PARTS) {
  if (only.length && !only.some((o) => file.startsWith(o))) continue;
  const url = new URL(file, import.meta.url).href;
  const script = `const m = await import(${JSON.stringify(url)}); for (const name of ${JSON.stringify(exports)}) await m[name]();`;
  const run = spawnSync(process.execPath, [...process.execArgv, '--input-type=module', '-e', script], { stdio: 'inherit' });
  if (run.status !== 0) {
    failed++;
    console.log(`bench/${file} failed (exit ${run.status ?? run.signal})`);
  }
  console.log();
}
if (failed) process.exit(1);
