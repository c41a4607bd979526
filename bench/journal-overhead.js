import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRecordingProxy } from '../dist/recorder/index.js';
import { startLoadServer } from './load-streams.js';
import { fmt } from './measure.js';

/** Milliseconds for 200 concurrent SSE streams x 500 events through a fresh proxy, journaled or not. */
async function run(journalFile) {
  const { server, url } = await startLoadServer(500);
  const proxy = await startRecordingProxy({ target: url, ...(journalFile ? { journal: { file: journalFile } } : {}) });
  const t = performance.now();
  await Promise.all(Array.from({ length: 200 }, async (_, s) => (await fetch(`${proxy.url}/stream/${s}`)).arrayBuffer()));
  const ms = performance.now() - t;
  await proxy.close();
  server.close();
  return ms;
}

/** `npm run bench` part: what the journal (every event on disk within 20 ms, redacted) costs under load, in interleaved rounds. */
export async function benchJournalOverhead(rounds = 3) {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-bench-journal-'));
  const ratios = [];
  try {
    await run();
    for (let r = 0; r < rounds; r++) {
      const plain = await run();
      const journaled = await run(join(dir, `r${r}.yaml.journal`));
      ratios.push(journaled / plain);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  console.log('journal cost: 200 SSE streams x 500 events through the recording proxy, journaled vs not (interleaved rounds)');
  console.log(`  ${fmt(Math.min(...ratios))}-${fmt(Math.max(...ratios))}x the time without a journal over ${rounds} rounds`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchJournalOverhead();
