import { afterEach, describe, expect, it } from 'vitest';
import { type Cassette, parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { startReplayServer } from '../../src/replayer/index.js';
import { sleep, startServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const POLLS = 50;
const GAP_MS = 60;

/** Records 50 identical polls of a job whose state moves on with each one, nothing state-changing before them. */
async function recordPolls(): Promise<{ cassette: Cassette; offsets: number[] }> {
  let n = 0;
  const server = await startServer((_req, res) => {
    n += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ poll: n }));
  });
  cleanups.push(() => server.close());
  const proxy = await startRecordingProxy({ target: server.url });
  const start = performance.now();
  const offsets: number[] = [];
  for (let k = 0; k < POLLS; k++) {
    offsets.push(performance.now() - start);
    await (await fetch(`${proxy.url}/job`)).json();
    await sleep(GAP_MS);
  }
  return { cassette: parseCassette(serializeCassette(await proxy.close())), offsets };
}

async function replay(cassette: Cassette, timing: string) {
  const server = await startReplayServer([{ name: 'polls.yaml', cassette }], { timing });
  cleanups.push(() => server.close());
  return async () => ((await (await fetch(`${server.url}/job`)).json()) as { poll: number }).poll;
}

describe('polls with nothing state-changing before them (decision 0002)', () => {
  it('replay in recorded order, instant and realtime, and the last repeats after them', async () => {
    const { cassette, offsets } = await recordPolls();
    const numbers = Array.from({ length: POLLS }, (_, k) => k + 1);

    const instant = await replay(cassette, 'instant');
    const seen: number[] = [];
    for (let k = 0; k <= POLLS; k++) seen.push(await instant());
    expect(seen).toEqual([...numbers, POLLS]);

    // Realtime: a client polling at the recorded moments gets each answer as its time comes. The moments are
    // the cassette's own (what the engine keeps distance by), each polled half a gap after it: a timer late
    // or early by less than half a gap, as on a loaded machine, still lands in its answer's window.
    const first = cassette.interactions[0]?.timing.start ?? 0;
    const due = cassette.interactions.map((i) => i.timing.start - first);
    expect(due).toHaveLength(offsets.length);
    const realtime = await replay(cassette, 'realtime');
    const timed: number[] = [];
    const start = performance.now();
    for (const [k, offset] of due.entries()) {
      // The engine counts from its first answer: the first poll goes at once.
      const wait = k === 0 ? 0 : offset + GAP_MS / 2 - (performance.now() - start);
      if (wait > 0) await sleep(wait);
      timed.push(await realtime());
    }
    timed.push(await realtime());
    expect(timed).toEqual([...numbers, POLLS]);
  }, 60_000);

  it('a faster poller sees the answers in order, repeating while the next is not due; a slower one skips ahead, never back', async () => {
    const { cassette } = await recordPolls();
    const fast = await replay(cassette, 'realtime');
    const seenFast: number[] = [];
    for (let k = 0; k < 40; k++) {
      seenFast.push(await fast());
      await sleep(GAP_MS / 4);
    }
    const slow = await replay(cassette, 'realtime');
    const seenSlow: number[] = [];
    for (let k = 0; k < 12; k++) {
      seenSlow.push(await slow());
      await sleep(GAP_MS * 4);
    }
    for (const seen of [seenFast, seenSlow]) {
      expect(seen[0]).toBe(1);
      for (let k = 1; k < seen.length; k++) expect(seen[k] as number).toBeGreaterThanOrEqual(seen[k - 1] as number);
    }
    // Four polls per recorded gap repeat answers; one poll per four gaps skips them.
    expect(new Set(seenFast).size).toBeLessThan(seenFast.length);
    expect((seenSlow.at(-1) as number) - (seenSlow[0] as number)).toBeGreaterThan(seenSlow.length);
  }, 60_000);
});
