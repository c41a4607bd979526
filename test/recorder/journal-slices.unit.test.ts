import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalWriter, readJournal } from '../../src/recorder/journal/index.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** A JSON answer whose redaction takes a while: many strings, a few of them secret-shaped. */
function bigBody(n: number): Buffer {
  const items = Array.from({ length: 120 }, (_, k) => ({
    id: `item_${n}_${k}`,
    text: `reply ${n} part ${k} with some words to scan`,
    ...(k % 40 === 0 ? { api_key: `sk-proj-${'a1B2c3D4'.repeat(6)}${n}` } : {}),
  }));
  return Buffer.from(JSON.stringify({ object: 'list', data: items }));
}

describe('journal flush', () => {
  it('cleans a large window in slices: the event loop keeps turning, and every exchange reaches the file in order', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-journal-slices-'));
    dirs.push(dir);
    const file = join(dir, 'big.yaml.journal');
    const journal = await JournalWriter.create(file, {
      recorder: 'test',
      target: 'http://127.0.0.1:9',
      recordedAt: '2026-01-01T00:00:00.000Z',
    });
    const count = 150;
    for (let seq = 1; seq <= count; seq++) {
      journal.add({ k: 'open', seq, request: { method: 'GET', path: `/v1/items/${seq}`, headers: {} }, start: seq });
      journal.add({ k: 'response', seq, at: seq + 0.5, status: 200, headers: { 'content-type': 'application/json' }, kind: 'body' });
      journal.add({ k: 'end', seq, timing: { start: seq, headers: seq + 0.5, end: seq + 1 }, bytes: bigBody(seq) });
    }
    // The longest time the loop went without a turn while the window was cleaned and written, against the whole flush.
    let longest = 0;
    let last = performance.now();
    let flushing = true;
    const turn = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      if (flushing) setImmediate(turn);
    };
    setImmediate(turn);
    const started = performance.now();
    await journal.flush();
    const total = performance.now() - started;
    flushing = false;
    await journal.close();
    // Unsliced, one turn held the whole clean (longest ≈ total); in slices, a turn holds a small part of it.
    expect(longest).toBeLessThan(total / 4);
    const { cassette, interrupted } = await readJournal(file);
    expect(interrupted).toBe(0);
    expect(cassette.interactions.map((i) => i.seq)).toEqual(Array.from({ length: count }, (_, k) => k + 1));
    const bodies = cassette.interactions.map((i) => JSON.stringify(i.response?.body));
    expect(bodies.every((b) => b.includes('"reply'))).toBe(true);
    // Redacted as before: no key survives in the file.
    expect(bodies.some((b) => b.includes('sk-proj-'))).toBe(false);
  });
});
