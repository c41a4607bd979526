// `npm run bench`: every performance benchmark, one after another, on this machine.
import { benchCassetteLoad } from './cassette-load.js';
import { benchContracts, benchScopedContracts, benchVerifyEndToEnd } from './contracts.js';
import { benchJournalOverhead } from './journal-overhead.js';
import { benchLoad } from './load-streams.js';
import { benchProxyOverhead } from './proxy-overhead.js';
import { benchReplay } from './replay.js';
import { benchSaveMemory } from './save-memory.js';
import { benchSseParse } from './sse-parse.js';

console.log(`tapedeck benchmarks on node ${process.version}, ${new Date().toISOString()}\n`);
await benchProxyOverhead();
console.log();
await benchCassetteLoad();
console.log();
await benchReplay();
console.log();
await benchContracts();
await benchScopedContracts();
await benchVerifyEndToEnd();
console.log();
await benchSseParse();
console.log();
await benchLoad();
console.log();
await benchSaveMemory();
console.log();
await benchJournalOverhead();
