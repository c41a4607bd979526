import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
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

/**
 * The time of the last fifth of `count` sequential JSON exchanges through a journaled proxy over that of the fifth
 * after a warm-up tenth; each answer carries a credential, fresh in every answer or the same one throughout.
 */
async function lateOverEarly(count, fresh) {
  const server = http.createServer((req, res) => {
    const n = Number(req.url.split('/').pop());
    const body = JSON.stringify({
      data: Array.from({ length: 40 }, (_, k) => ({
        id: `item_${n}_${k}`,
        text: `reply ${n} part ${k}`,
        ...(k % 20 === 0 ? { api_key: `sk-proj-${'a1B2c3D4'.repeat(5)}${fresh ? `${n}x${k}` : 'same'}` } : {}),
      })),
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-bench-secrets-'));
  const proxy = await startRecordingProxy({
    target: `http://127.0.0.1:${server.address().port}`,
    journal: { file: join(dir, 'fresh.yaml.journal') },
  });
  const agent = new Agent();
  const times = [];
  try {
    for (let n = 0; n < count; n++) {
      const t = performance.now();
      const res = await request(`${proxy.url}/v1/items/${n}`, { dispatcher: agent });
      await res.body.arrayBuffer();
      times.push(performance.now() - t);
    }
  } finally {
    await agent.close();
    await proxy.close();
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
  // Totals, not medians: the cost was the event loop held by the journal, which falls on whichever exchanges wait.
  const slice = Math.floor(count / 5);
  const warm = Math.floor(count / 10);
  const sum = (a) => a.reduce((x, y) => x + y, 0);
  return sum(times.slice(-slice)) / sum(times.slice(warm, warm + slice));
}

/**
 * `npm run bench` part: a server whose every answer carries a fresh credential (signed URLs, session tokens),
 * 2,000 exchanges through a journaled proxy, against the same run with one credential throughout: the late
 * exchanges should cost what the early ones did, however many secrets the recording has collected.
 */
export async function benchFreshSecrets(count = 2000, rounds = 2) {
  const fresh = [];
  const same = [];
  for (let r = 0; r < rounds; r++) {
    same.push(await lateOverEarly(count, false));
    fresh.push(await lateOverEarly(count, true));
  }
  const range = (a) => `${fmt(Math.min(...a))}-${fmt(Math.max(...a))}x`;
  console.log(`a credential in every answer, ${count} JSON exchanges through a journaled proxy, ${rounds} interleaved rounds:`);
  console.log(`  last fifth / second fifth of the run: fresh in every answer ${range(fresh)}, the same one throughout ${range(same)}`);
  const ratios = fresh.map((f, k) => f / (same[k] ?? 1));
  console.log(`  fresh / same ${range(ratios)} (target <= 1.5: an exchange costs the same however many secrets came before)`);
  return { fresh, same, ratios };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchJournalOverhead();
  await benchFreshSecrets();
}
