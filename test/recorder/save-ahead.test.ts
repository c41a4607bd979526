import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type Interaction, interactionPreparer, loadCassette, serializeCassette, writeCassetteStream } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { SaveAhead } from '../../src/recorder/save-ahead.js';
import { Timeline } from '../../src/recorder/timeline.js';
import { benchProxyUnderWrapper } from '../helpers/cli.js';
import { sleep, startServer, type TestServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const TOKEN = 'Zq81mXv03LpTk7Wd';
const curl = promisify(execFile);

/** JSON that echoes the token (gzipped on /zipped or when asked), and an SSE stream that does too. */
async function echoingServer(): Promise<TestServer> {
  const server = await startServer(async (req, res) => {
    const url = req.url ?? '/';
    if (url.startsWith('/stream')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let k = 0; k < 5; k++) res.write(`event: delta\ndata: {"k":${k},"echo":"${TOKEN}"}\n\n`);
      res.end();
    } else if (url.startsWith('/zipped') || /gzip/.test(String(req.headers['accept-encoding'] ?? ''))) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ echo: `the word is ${TOKEN}`, url })));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ url, echo: TOKEN }));
    }
  });
  cleanups.push(() => server.close());
  return server;
}

describe('the save prepared while recording (decision 0012)', () => {
  it('writes the bytes a save without preparation writes, with a secret learnt after its echoes were prepared', async () => {
    const server = await echoingServer();
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-save-ahead-'));
    const file = join(dir, 'c.yaml');
    const proxy = await startRecordingProxy({ target: server.url, journal: { file: `${file}.journal` } });
    const agent = new Agent({ connections: 4 });
    cleanups.push(() => agent.close());
    // Four connections at once, the token only ever echoed: every echo can be prepared before it is known to be a secret.
    await Promise.all(
      Array.from({ length: 4 }, async (_, c) => {
        for (let k = 0; k < 40; k++) {
          const path = k % 10 === 3 ? '/stream' : k % 10 === 7 ? '/zipped' : `/items/${c}-${k}`;
          await (await request(`${proxy.url}${path}`, { dispatcher: agent })).body.text();
        }
      }),
    );
    await sleep(200);
    // The last request makes it a secret: every prepared echo is stale now.
    await (await request(`${proxy.url}/me`, { dispatcher: agent, headers: { authorization: `Bearer ${TOKEN}` } })).body.text();
    await sleep(200);
    expect(await proxy.save(file)).toBe(161);
    await proxy.discardJournal();
    const text = await readFile(file, 'utf8');

    const recorded = await proxy.close();
    const plain = join(dir, 'plain.yaml');
    await writeCassetteStream(plain, recorded.meta, () => recorded.interactions);
    expect(text).toBe(await readFile(plain, 'utf8'));
    expect(text).not.toContain(TOKEN);
    expect(text.match(/<redacted:authorization>/g)?.length).toBeGreaterThan(160);
  });

  it('bench proxy stopped by its wrapper PID saves every exchange of curl clients, the late secret nowhere, in canonical bytes', async () => {
    const server = await echoingServer();
    const { file, url, bench } = await benchProxyUnderWrapper(server.url, 'c.yaml', cleanups);
    // Three curl clients at once, gzip asked for by one, then the token sent as a credential.
    await Promise.all(
      [['--compressed'], [], []].map(async (extra, c) => {
        for (let k = 0; k < 10; k++) await curl('curl', ['-sS', ...extra, `${url}/${k % 5 === 2 ? 'stream' : `items/${c}-${k}`}`]);
      }),
    );
    await sleep(100);
    await curl('curl', ['-sS', '-H', `Authorization: Bearer ${TOKEN}`, `${url}/me`]);
    process.kill(bench.wrapperPid, 'SIGKILL');
    await bench.ended;
    const text = await readFile(file, 'utf8');
    expect(existsSync(`${file}.journal`)).toBe(false);
    expect(text).not.toContain(TOKEN);
    const cassette = await loadCassette(file);
    expect(serializeCassette(cassette)).toBe(text);
    expect(cassette.interactions).toHaveLength(31);
    expect(cassette.interactions.filter((i) => i.response?.encoding === 'gzip').length).toBe(8);
    expect(cassette.interactions.filter((i) => i.response?.stream?.events.length === 5).length).toBe(6);
  }, 60_000);

  it('bench proxy records answers that each carry a fresh credential: every exchange saved, none of the keys, in canonical bytes', async () => {
    // Signed URLs and session tokens: a new secret in every answer, so the scrub list grows all recording long. Each
    // answer also mentions the previous answer's key in plain words: only the learnt list can find it there.
    const key = (c: string, k: number) => `tok${c}x${k}Q7x9Zp2LmW4rT8vY`;
    const server = await startServer((req, res) => {
      const url = req.url ?? '/';
      const [c = '0', k = '0'] = url.replace('/items/', '').split('-');
      const n = Number(k);
      const body = JSON.stringify({
        url,
        api_key: key(c, n),
        note: n > 0 ? `the last key was ${key(c, n - 1)}, now retired` : 'first',
        download: `https://files.example${url}?sig=${key(c, n)}s`,
      });
      if (/gzip/.test(String(req.headers['accept-encoding'] ?? ''))) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(body));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      }
    });
    cleanups.push(() => server.close());
    const { file, url, bench } = await benchProxyUnderWrapper(server.url, 'fresh.yaml', cleanups);
    // Two curl clients at once, one asking for gzip, 60 requests each (one curl process per request).
    await Promise.all(
      [['--compressed'], []].map(async (extra, c) => {
        for (let k = 0; k < 60; k++) await curl('curl', ['-sS', ...extra, `${url}/items/${c}-${k}`]);
      }),
    );
    process.kill(bench.wrapperPid, 'SIGKILL');
    await bench.ended;
    const text = await readFile(file, 'utf8');
    expect(existsSync(`${file}.journal`)).toBe(false);
    expect(text).not.toContain('Q7x9Zp2LmW4rT8vY');
    const cassette = await loadCassette(file);
    expect(serializeCassette(cassette)).toBe(text);
    expect(cassette.interactions).toHaveLength(120);
    expect(cassette.interactions.filter((i) => i.response?.encoding === 'gzip').length).toBe(60);
    // Each answer kept its shape, its keys replaced where they stood.
    for (const i of cassette.interactions) {
      const json = (i.response?.body as { json?: { url?: string; api_key?: string; note?: string; download?: string } } | undefined)?.json;
      expect(json?.url).toBe(i.request.path);
      expect(json?.api_key).toBe('<redacted:api_key>');
      expect(json?.note).toMatch(/^(?:first|the last key was <redacted:api_key>, now retired)$/);
      expect(json?.download).toMatch(/^https:\/\/files\.example\/items\/.+\?sig=<redacted:/);
    }
  }, 90_000);

  it('lets an exchange that changed after it settled be rendered by the save, from what it became', async () => {
    const prepare = interactionPreparer();
    const ahead = new SaveAhead((i) => prepare(() => structuredClone(i)));
    const timeline = new Timeline(undefined, ahead);
    const i = timeline.open({ method: 'GET', path: '/ws', headers: {} });
    timeline.respond(i, { status: 101, headers: {}, websocket: { frames: [], end: 'server-closed' } });
    timeline.frame(i, { at: timeline.now(), from: 'client', seq: timeline.tick(), after: 1, text: 'bye' });
    timeline.finish(i, { end: 'client-closed' });
    await sleep(100);
    expect(ahead.get(i)?.text).toContain('bye');
    // The server's frame was already on its way when the client's close ended the session.
    timeline.frame(i, { at: timeline.now(), from: 'server', after: 2, text: 'late' });
    expect(ahead.get(i)).toBeUndefined();
    timeline.finish(i, { end: 'client-closed' });
    await sleep(100);
    expect(ahead.get(i)).toBeUndefined();
    expect((i as Interaction).response?.websocket?.frames.map((f) => f.text)).toEqual(['bye', 'late']);
  });
});
