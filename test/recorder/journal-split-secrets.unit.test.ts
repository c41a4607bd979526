import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { JournalWriter, readJournal } from '../../src/recorder/journal/index.js';
import { cutInto, piecesOf, prose, spokenSecret } from '../helpers/spelt-secrets.js';

let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * A journal in the test folder with one exchange under way, its request (with `headers`) and response head
 * written: an SSE stream, or a WebSocket session whose server sends JSON-RPC deltas (codex app-server's).
 */
async function streamJournal(name: string, headers: Record<string, string> = {}, overWebSocket = false) {
  dir ??= await mkdtemp(join(tmpdir(), 'tapedeck-journal-split-'));
  const file = join(dir, name);
  const journal = await JournalWriter.create(file, { recorder: 't', target: 'http://127.0.0.1:9', recordedAt: '2026-01-01T00:00:00.000Z' });
  journal.add({ k: 'open', seq: 1, request: { method: overWebSocket ? 'GET' : 'POST', path: '/chat', headers }, start: 0 });
  journal.add(
    overWebSocket
      ? { k: 'response', seq: 1, at: 1, status: 101, headers: { upgrade: 'websocket' }, kind: 'websocket' }
      : { k: 'response', seq: 1, at: 1, status: 200, headers: { 'content-type': 'text/event-stream' }, kind: 'stream' },
  );
  await journal.flush();
  const say = (delta: string, at: number) =>
    journal.add(
      overWebSocket
        ? { k: 'frame', seq: 1, frame: { at, from: 'server', after: 1, json: { method: 'item/agentMessage/delta', params: { delta } } } }
        : { k: 'event', seq: 1, item: { at, after: 1, event: 'delta', data: JSON.stringify({ delta }) } },
    );
  return { file, journal, say };
}

/** The deltas the recovered exchange holds, from its stream or its session. */
async function recoveredDeltas(file: string): Promise<string[]> {
  const { cassette } = await readJournal(file);
  const response = cassette.interactions[0]?.response;
  if (response?.websocket) return response.websocket.frames.map((f) => (f.json as { params: { delta: string } }).params.delta);
  return (response?.stream?.events ?? []).map((e) => JSON.parse(e.data ?? '{}').delta);
}

/** What the recovered exchange reads, its deltas put together. */
const recoveredText = async (file: string) => (await recoveredDeltas(file)).join('');

describe('the journal, window by window', () => {
  it('never writes a piece of a secret spelt out across windows, over SSE or WebSocket, and recovers it as one placeholder', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        spokenSecret,
        prose,
        prose,
        fc.array(fc.nat(), { minLength: 1, maxLength: 7 }),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        fc.boolean(),
        async (secret, before, after, cuts, windowEnds, overWebSocket) => {
          const headers = secret.header ? { authorization: secret.header } : {};
          const { file, journal, say } = await streamJournal(`s${run++}.journal`, headers, overWebSocket);
          const deltas = cutInto(`${before} ${secret.text} ${after}`, cuts);
          const forbidden = piecesOf(secret.random);
          const onDisk = async () => {
            const written = await readFile(file, 'utf8');
            for (const g of forbidden) expect(written).not.toContain(g);
          };
          for (const [k, delta] of deltas.entries()) {
            say(delta, 2 + k);
            // Windows end at random: a flush writes whatever the window caught.
            if (windowEnds[k % windowEnds.length]) {
              await journal.flush();
              await onDisk();
            }
          }
          await journal.flush();
          await onDisk();
          journal.add({ k: 'end', seq: 1, timing: { start: 0, headers: 1, end: 99 }, end: 'server-closed' });
          await journal.close();
          await onDisk();
          const recovered = await recoveredDeltas(file);
          expect(recovered).toHaveLength(deltas.length);
          const spoken = recovered.join('');
          expect(spoken.startsWith(before)).toBe(true);
          expect(spoken.endsWith(after)).toBe(true);
          expect(spoken).toContain('<redacted:');
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);

  it('finds a password after its name spelt a character an item, each in a window of its own', async () => {
    const { file, journal, say } = await streamJournal('spelt.journal');
    const value = 'Q7ZX2MPK9RWN4B';
    const deltas = [...'the password: ', value.slice(0, 6), value.slice(6), ' then more words'];
    for (const [k, delta] of deltas.entries()) {
      say(delta, 2 + k);
      await journal.flush();
    }
    journal.add({ k: 'end', seq: 1, timing: { start: 0, headers: 1, end: 99 }, end: 'server-closed' });
    await journal.close();
    const written = await readFile(file, 'utf8');
    for (const g of piecesOf(value)) expect(written).not.toContain(g);
    expect(await recoveredText(file)).toMatch(/^the password: <redacted:[a-z0-9_.-]+> then more words$/);
  });

  it('writes the items of a stream whose end holds no secret in the window that caught them', async () => {
    const { file, journal } = await streamJournal('plain.journal');
    const words = ['Hello', ' there', ', here', ' is', ' the', ' summary', ' you', ' asked', ' for', ': msg_7Hq2', ' done'];
    for (const [k, w] of words.entries()) {
      journal.add({
        k: 'event',
        seq: 1,
        item: { at: 2 + k, after: 1, event: 'response.output_text.delta', data: JSON.stringify({ item_id: 'msg_68af3c2e9d8', delta: w }) },
      });
      await journal.flush();
      // Every item is on disk once its window is flushed: nothing held without a reason.
      const lines = (await readFile(file, 'utf8')).trim().split('\n');
      const items = lines.map((l) => JSON.parse(l)).flatMap((r) => (r.k === 'events' ? r.items : []));
      expect(items).toHaveLength(k + 1);
    }
    await journal.close();
  });
});
