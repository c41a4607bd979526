import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCassetteAtomic } from '../dist/cassette/index.js';
import { startRecordingProxy } from '../dist/recorder/index.js';
import { startLoadServer } from './load-streams.js';
import { fmt } from './measure.js';

/** Records 200 streams x 500 events through a fresh proxy; returns it unsaved, with the server to close. */
async function record(streams = 200, eventsPerStream = 500) {
  const { server, url } = await startLoadServer(eventsPerStream);
  const proxy = await startRecordingProxy({ target: url });
  await Promise.all(
    Array.from({ length: streams }, async (_, s) => {
      const res = await fetch(`${proxy.url}/stream/${s}`);
      await res.arrayBuffer();
    }),
  );
  server.close();
  return proxy;
}

/** Peak RSS (MB) while `save` runs, sampled every 2 ms, and the RSS (MB) just before it. */
async function peakDuring(save) {
  globalThis.gc?.();
  await new Promise((r) => setTimeout(r, 50));
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 2);
  const t = performance.now();
  await save();
  const ms = performance.now() - t;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { before: before / 1048576, peak: peak / 1048576, ms };
}

/** `npm run bench` part: memory while saving a big recording (target: peak under 1.5x the RSS before the save). */
export async function benchSaveMemory() {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-bench-save-'));
  try {
    let streamed = await record();
    const s = await peakDuring(() => streamed.save(join(dir, 'streamed.yaml')));
    streamed = undefined;
    const whole = await record();
    const w = await peakDuring(async () => writeCassetteAtomic(join(dir, 'whole.yaml'), await whole.close()));
    console.log('saving a recording of 200 SSE streams x 500 events (proxy, server and clients in one process)');
    console.log(
      `  streamed save (bench proxy, bench record): RSS ${fmt(s.before, 0)} MB before, peak ${fmt(s.peak, 0)} MB = ${fmt(s.peak / s.before)}x (target < 1.5x), ${fmt(s.ms, 0)} ms`,
    );
    console.log(
      `  whole-cassette save, for comparison: RSS ${fmt(w.before, 0)} MB before, peak ${fmt(w.peak, 0)} MB = ${fmt(w.peak / w.before)}x, ${fmt(w.ms, 0)} ms`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchSaveMemory();
