import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { afterEach, expect, it } from 'vitest';
import YAML from 'yaml';
import { type Interaction, interactionPreparer, loadCassette, portablePass, writeCassetteStream } from '../../src/cassette/index.js';
import type * as Recorder from '../../src/recorder/index.js';
import type { JournalEntry } from '../../src/recorder/journal/format.js';
import { readJournal } from '../../src/recorder/journal/index.js';
import { ThreadRecording } from '../../src/recorder/thread/thread-recording.js';
import { readBody, startServer, type TestServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

// The compiled recorder (`npm test` builds it first): only there does the recording thread run, as users run it.
const DIST = new URL('../../dist/recorder/index.js', import.meta.url).href;
const TOKEN = 'Wm4q81ZxT0pLs7Vd';

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-thread-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A journal with its first line written, and the recording thread's class appending to it (on this thread). */
async function threadJournal(): Promise<{ file: string; thread: ThreadRecording }> {
  const file = join(await tempDir(), 'j.journal');
  await writeFile(file, `${JSON.stringify({ k: 'meta', journal: 1, meta: { recorder: 'test', target: 'http://x', recordedAt: '' } })}\n`);
  return { file, thread: await ThreadRecording.open(file, undefined, undefined) };
}

/** JSON echoing the token, a gzip answer, an SSE stream, a POST echoed back, and a 401 naming a machine folder. */
async function mixedServer(): Promise<TestServer> {
  const server = await startServer(async (req, res) => {
    const url = req.url ?? '/';
    const sent = (await readBody(req)).toString();
    if (url.startsWith('/stream')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let k = 0; k < 20; k++) res.write(`event: delta\nid: ${k}\ndata: {"k":${k},"echo":"${TOKEN}"}\n\n`);
      res.end();
    } else if (url.startsWith('/zipped')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ echo: `the word is ${TOKEN}`, url })));
    } else if (url.startsWith('/denied')) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      res.end(JSON.stringify({ error: 'no', cwd: process.cwd() }));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ url, echo: TOKEN, sent }));
    }
  });
  cleanups.push(() => server.close());
  return server;
}

it('the recording thread journals and prepares what this thread would: the same bytes saved, the journal the same cassette', async () => {
  const { startRecordingProxy } = (await import(DIST)) as typeof Recorder;
  const server = await mixedServer();
  const dir = await tempDir();
  const file = join(dir, 'c.yaml');
  const proxy = await startRecordingProxy({ target: server.url, journal: { file: `${file}.journal` } });
  const agent = new Agent({ connections: 3 });
  cleanups.push(() => agent.close());
  await Promise.all(
    Array.from({ length: 3 }, async (_, c) => {
      for (let k = 0; k < 30; k++) {
        const path = ['/stream', '/zipped', '/denied', `/items/${c}-${k}`, '/posts'][k % 5] as string;
        const post = path === '/posts' ? { method: 'POST' as const, body: JSON.stringify({ c, k, note: TOKEN }) } : {};
        await (
          await request(`${proxy.url}${path}`, { dispatcher: agent, headers: { 'content-type': 'application/json' }, ...post })
        ).body.text();
      }
    }),
  );
  // Late, the token turns out to be a credential: everything prepared before is scrubbed again by the save.
  await (await request(`${proxy.url}/me`, { dispatcher: agent, headers: { authorization: `Bearer ${TOKEN}` } })).body.text();
  await proxy.stop();
  // What the journal holds: the whole recording, every exchange ended, written by the thread.
  const recovered = await readJournal(`${file}.journal`);
  expect(recovered.interrupted).toBe(0);
  expect(recovered.cassette.interactions).toHaveLength(91);
  expect(await proxy.save(file)).toBe(91);
  const text = await readFile(file, 'utf8');
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain(process.cwd());

  // The same recording saved with nothing prepared, on this thread: the same bytes.
  const plain = join(dir, 'plain.yaml');
  await writeCassetteStream(plain, proxy.cassette().meta, () => proxy.cassette().interactions);
  expect(text).toBe(await readFile(plain, 'utf8'));
  // And the journal folds back to that cassette: the same exchanges, timings and all. Its early lines still hold
  // the token, learnt to be a credential only at the end, as a journal written on this thread does.
  const saved = await loadCassette(file);
  const again = join(dir, 'again.yaml');
  const learnt = JSON.parse(JSON.stringify(recovered.cassette.interactions).replaceAll(TOKEN, '<redacted:authorization>'));
  await writeCassetteStream(again, saved.meta, () => learnt);
  expect((await loadCassette(again)).interactions).toEqual(saved.interactions);
}, 60_000);

it('leaves the process free to exit: a script that records in-process and saves ends by itself', async () => {
  const server = await mixedServer();
  const dir = await tempDir();
  const script = join(dir, 'record.mjs');
  await writeFile(
    script,
    `import { recordingDispatcher } from ${JSON.stringify(DIST)};
const recorder = await recordingDispatcher({ target: process.argv[2], journal: { file: process.argv[3] + '.journal' } });
for (const path of ['/items/1', '/stream', '/zipped']) await (await fetch(process.argv[2] + path, { dispatcher: recorder })).text();
console.log('saved', await recorder.save(process.argv[3]));
await recorder.discardJournal();
`,
  );
  const child = spawn(process.execPath, [script, server.url, join(dir, 'c.yaml')], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(-1);
    }, 20_000);
    child.once('exit', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  expect({ code, out: out.trim() }).toEqual({ code: 0, out: 'saved 3' });
  expect((await loadCassette(join(dir, 'c.yaml'))).interactions.map((i) => i.request.path)).toEqual(['/items/1', '/stream', '/zipped']);
}, 30_000);

it('runs where the test process was started with --input-type=module -e, as `npm run bench` starts its parts', async () => {
  const server = await mixedServer();
  const dir = await tempDir();
  const thread = new URL('../../dist/recorder/thread/client.js', import.meta.url).href;
  // A thread inherits the process's options, and one started from a file refuses --input-type: it broke, and every
  // recording fell back to the thread that forwards the traffic.
  const script = `import { recordingDispatcher } from ${JSON.stringify(DIST)};
import { offThread } from ${JSON.stringify(thread)};
const [target, file] = process.argv.slice(1);
const recorder = await recordingDispatcher({ target, journal: { file: file + '.journal' } });
for (const path of ['/items/1', '/stream', '/zipped']) await (await fetch(target + path, { dispatcher: recorder })).text();
console.log('saved', await recorder.save(file), offThread(undefined, undefined) ? 'on the thread' : 'without the thread');
await recorder.discardJournal();
`;
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, server.url, join(dir, 'c.yaml')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(`${text.trim()} (exit ${code})`);
    });
  });
  expect(out).toBe('saved 3 on the thread (exit 0)');
}, 30_000);

it('an exchange that changes after it ended is left for the save to render, as on this thread', async () => {
  const { file, thread } = await threadJournal();
  const request = { method: 'GET', path: '/ws', headers: {} };
  const frame = (text: string, at: number) => ({ k: 'frame' as const, seq: 1, frame: { at, from: 'server' as const, after: 1, text } });
  const entries: JournalEntry[] = [
    { k: 'open', seq: 1, request, start: 0 },
    { k: 'response', seq: 1, at: 1, status: 101, headers: {}, kind: 'websocket' },
    frame('hello', 2),
    { k: 'end', seq: 1, timing: { start: 0, headers: 1, end: 3 }, end: 'client-closed' },
    { k: 'open', seq: 2, request: { ...request, path: '/items' }, start: 4 },
    { k: 'response', seq: 2, at: 5, status: 200, headers: { 'content-type': 'application/json' }, kind: 'body' },
    { k: 'end', seq: 2, timing: { start: 4, headers: 5, end: 6 }, bytes: Buffer.from('{"ok":true}') },
  ];
  await thread.write(entries);
  expect(thread.collect().items.map(([seq]) => seq)).toEqual([1, 2]);
  // A frame already on its way when the close ended the session.
  await thread.close([frame('late', 7)]);
  const { items } = thread.collect();
  expect(items.map(([seq]) => seq)).toEqual([2]);
  // What it prepared is what this thread prepares from the same exchange.
  const exchange: Interaction = {
    seq: 2,
    request: { ...request, path: '/items' },
    timing: { start: 4, headers: 5, end: 6 },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: { json: { ok: true } } },
  };
  expect(items[0]?.[2]).toBe(interactionPreparer(undefined, portablePass())(() => exchange).text);
  const journal = await readFile(file, 'utf8');
  expect(
    journal
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { k: string }).k),
  ).toEqual(['meta', 'exchange', 'exchange', 'frame']);
  // Each exchange opened and ended in one batch is one line; the frame after its end is folded back in by recover.
  const recovered = (await readJournal(file)).cassette.interactions;
  expect(recovered.map((i) => i.response?.websocket?.frames.map((f) => f.text) ?? i.response?.body)).toEqual([
    ['hello', 'late'],
    { json: { ok: true } },
  ]);
});

it("a whole exchange's journal line is the save's redaction, scrubbed too of what the journal learnt from a stream still open", async () => {
  const { file, thread } = await threadJournal();
  // A stream opened with a credential, still open: the save's preparation has not seen it, the journal has.
  await thread.write([
    { k: 'open', seq: 1, request: { method: 'GET', path: '/events', headers: { authorization: `Bearer ${TOKEN}` } }, start: 0 },
    { k: 'response', seq: 1, at: 1, status: 200, headers: { 'content-type': 'text/event-stream' }, kind: 'stream' },
  ]);
  // Then a whole exchange whose body says the credential under a name that is no secret's.
  const echo = Buffer.from(JSON.stringify({ note: `token ${TOKEN}`, n: 1 }));
  await thread.write([
    { k: 'open', seq: 2, request: { method: 'GET', path: '/items', headers: {} }, start: 2 },
    { k: 'response', seq: 2, at: 3, status: 200, headers: { 'content-type': 'application/json' }, kind: 'body' },
    { k: 'end', seq: 2, timing: { start: 2, headers: 3, end: 4 }, bytes: echo },
  ]);
  await thread.close([{ k: 'end', seq: 1, timing: { start: 0, headers: 1, end: 5 }, end: 'server-closed' }]);
  const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
  expect(lines.map((l) => (JSON.parse(l) as { k: string }).k)).toEqual(['meta', 'open', 'response', 'exchange', 'end']);
  expect(lines.join('\n')).not.toContain(TOKEN);
  // The exchange's line is what the save would write of it, once the stream taught the credential.
  const prepare = interactionPreparer(undefined, portablePass());
  const stream = (await readJournal(file)).cassette.interactions[0] as Interaction;
  prepare(() => ({ ...stream, request: { ...stream.request, headers: { authorization: `Bearer ${TOKEN}` } } }));
  const exchange: Interaction = {
    seq: 2,
    request: { method: 'GET', path: '/items', headers: {} },
    timing: { start: 2, headers: 3, end: 4 },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: { json: JSON.parse(echo.toString()) } },
  };
  const saved = YAML.parse(prepare(() => exchange).text) as Interaction[];
  expect((JSON.parse(lines[3] as string) as { interaction: Interaction }).interaction).toEqual(saved[0]);
});

it('what a whole exchange taught the save is scrubbed from the stream parts journaled after it', async () => {
  const { file, thread } = await threadJournal();
  await thread.write([
    { k: 'open', seq: 1, request: { method: 'GET', path: '/me', headers: { authorization: `Bearer ${TOKEN}` } }, start: 0 },
    { k: 'response', seq: 1, at: 1, status: 204, headers: {}, kind: 'body' },
    { k: 'end', seq: 1, timing: { start: 0, headers: 1, end: 2 } },
  ]);
  // A stream that goes on over several batches says it back.
  await thread.write([
    { k: 'open', seq: 2, request: { method: 'GET', path: '/events', headers: {} }, start: 3 },
    { k: 'response', seq: 2, at: 4, status: 200, headers: { 'content-type': 'text/event-stream' }, kind: 'stream' },
    { k: 'event', seq: 2, item: { at: 5, after: 1, event: 'delta', data: `{"said":"${TOKEN}"}` } },
  ]);
  await thread.close([{ k: 'end', seq: 2, timing: { start: 3, headers: 4, end: 6 }, end: 'server-closed' }]);
  const journal = await readFile(file, 'utf8');
  expect(journal).toContain('"k":"events"');
  expect(journal).not.toContain(TOKEN);
});
