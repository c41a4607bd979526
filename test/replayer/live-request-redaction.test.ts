import { afterEach, describe, expect, it } from 'vitest';
import { parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { startReplayServer } from '../../src/replayer/index.js';
import { readBody, startServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('a live request is redacted as its recording was', () => {
  it('a key sent only in a header and echoed in the body matches on its placeholder, with or without matching that header', async () => {
    const key = `k${Math.random().toString(36).slice(2, 12)}Z9q`;
    const server = await startServer(async (req, res) => {
      const body = await readBody(req);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ saved: body.length }));
    });
    cleanups.push(() => server.close());
    const proxy = await startRecordingProxy({ target: server.url });
    // `note` is no secret's name: only the header says the value is one.
    const send = (base: string, k: string) =>
      fetch(`${base}/v1/notes`, {
        method: 'POST',
        headers: { 'x-api-key': k, 'content-type': 'application/json' },
        body: JSON.stringify({ note: `my key is ${k}` }),
      });
    expect((await send(proxy.url, key)).status).toBe(200);
    const text = serializeCassette(await proxy.close());
    expect(text).not.toContain(key);
    expect(text).toContain('my key is <redacted:x-api-key>');
    const cassette = parseCassette(text);

    for (const matchHeaders of [undefined, ['X-Api-Key']]) {
      const replay = await startReplayServer([{ name: 'notes.yaml', cassette }], { ...(matchHeaders ? { matchHeaders } : {}) });
      cleanups.push(() => replay.close());
      // The same key, and another one: either way the body and the header read as the placeholder.
      for (const k of [key, `${key}other`]) {
        const res = await send(replay.url, k);
        expect(res.status, `matchHeaders ${matchHeaders} key ${k === key ? 'same' : 'other'}`).toBe(200);
        expect(await res.json()).toEqual({ saved: expect.any(Number) });
      }
      // A body that differs beyond the key does not match.
      const miss = await fetch(`${replay.url}/v1/notes`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ note: `your key is ${key}` }),
      });
      expect(miss.status).toBe(400);
      await miss.arrayBuffer();
    }
  });
});
