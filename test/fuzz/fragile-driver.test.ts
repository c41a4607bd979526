import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Cassette, type Interaction, loadCassette } from '../../src/cassette/index.js';
import { type FetchLike, REPLAY_ORIGIN } from '../../src/families/kit/index.js';
import { counterexampleReplayOptions, exploreCassette, type FuzzCase, FuzzError, fuzzCassette } from '../../src/fuzz/index.js';
import { cassetteFetch } from '../../src/probing/index.js';
import { SseParser } from '../../src/sse/index.js';

const DENY = join(import.meta.dirname, '..', '..', 'cassettes', 'kiro-native', 'policy_deny.yaml');
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

function turnOf(cassette: Cassette): { stream: Interaction; turn: Interaction } {
  const turn = cassette.interactions.find(
    (i) => i.request.method === 'POST' && i.request.path.endsWith('/events') && JSON.stringify(i.request.body).includes('"message"'),
  ) as Interaction;
  const stream = cassette.interactions.filter((i) => i.response?.stream && i.seq < turn.seq).at(-1) as Interaction;
  return { stream, turn };
}

/**
 * A deliberately fragile driver: it subscribes, posts the turn, and stops
 * reading at the first chunk that holds a response.output_item.done, so a
 * policy_denied that trails the call in a later chunk is never seen.
 * Returns whether it saw the denial.
 */
async function fragileDenyWatch(cassette: Cassette, fetch: FetchLike): Promise<boolean> {
  const { stream, turn } = turnOf(cassette);
  const res = await fetch(`${REPLAY_ORIGIN}${stream.request.path}`, { headers: { accept: 'text/event-stream' } });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const parser = new SseParser();
  const typesIn = (chunk: Uint8Array) => parser.push(chunk).flatMap((f) => (f.kind === 'event' && f.event ? [f.event] : []));
  typesIn((await reader.read()).value ?? new Uint8Array());
  const posted = await fetch(`${REPLAY_ORIGIN}${turn.request.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify((turn.request.body as { json: unknown }).json),
  });
  await posted.arrayBuffer();
  let denied = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const types = typesIn(value);
    if (types.includes('response.policy_denied')) denied = true;
    if (types.includes('response.output_item.done')) break;
  }
  await reader.cancel();
  return denied;
}

const sawDenial = (c: FuzzCase) => fragileDenyWatch(c.cassette, c.fetch);

describe('contract-guided fuzzing of a fragile driver', () => {
  it('the fragile driver passes on the recorded run itself', async () => {
    const cassette = await loadCassette(DENY);
    expect(await fragileDenyWatch(cassette, cassetteFetch([{ name: 'deny', cassette }]))).toBe(true);
  });

  it('catches it within 200 runs, shrinks to a few changes, and the printed seed and path reproduce it', async () => {
    const cassette = await loadCassette(DENY);
    const report = await exploreCassette(cassette, { name: 'kiro deny', runs: 200, seed: 20261130 }, sawDenial);
    const failure = report.failure;
    expect(failure).toBeDefined();
    if (!failure) return;
    expect(failure.runs).toBeLessThanOrEqual(200);
    expect(failure.reproduced).toBe(true);
    // Shrunk: at most a few edits and cuts; here the break needs only a chunk cut after the call.
    expect(failure.variation.edits.length + failure.variation.transport.cuts.length).toBeLessThanOrEqual(3);
    expect(failure.cuts.length).toBeGreaterThan(0);
    // The printed seed and path replay exactly this counterexample, on the first run.
    const again = await exploreCassette(cassette, { name: 'kiro deny', runs: 200, seed: failure.seed, path: failure.path }, sawDenial);
    expect(again.failure?.variation).toEqual(failure.variation);
    expect(again.failure?.runs).toBe(1);
    // The seed alone walks the same variations to the same first failure.
    const rerun = await exploreCassette(cassette, { name: 'kiro deny', runs: 200, seed: failure.seed }, sawDenial);
    expect(rerun.failure?.variation).toEqual(failure.variation);
  }, 60_000);

  it('fuzzCassette throws a report naming the seed, the path and the event sequence', async () => {
    const cassette = await loadCassette(DENY);
    const error = await fuzzCassette(cassette, { name: 'kiro deny', runs: 200, seed: 7 }, sawDenial).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FuzzError);
    const message = (error as FuzzError).message;
    expect((error as FuzzError).code).toBe('property_failed');
    expect(message).toMatch(/reproduce: seed 7, path "[\d:]+"/);
    expect(message).toMatch(/cut the stream of seq \d+/);
    expect(message).toContain('events of the stream of seq');
    expect(message).toContain('response.policy_denied');
  }, 60_000);

  it('saves the counterexample as a cassette that replays the same break, transport included', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-fuzz-'));
    dirs.push(dir);
    const file = join(dir, 'deny-counterexample.yaml');
    const cassette = await loadCassette(DENY);
    const report = await exploreCassette(cassette, { runs: 200, seed: 11, saveCounterexample: file }, sawDenial);
    expect(report.failure?.saved).toBe(file);
    const saved = await loadCassette(file);
    expect(saved.meta.labels?.['fuzz-seed']).toBe('11');
    const replay = counterexampleReplayOptions(saved);
    expect(replay.reframe).toBeDefined();
    expect(await fragileDenyWatch(saved, cassetteFetch([{ name: 'saved', cassette: saved }], replay))).toBe(false);
  }, 60_000);
});
