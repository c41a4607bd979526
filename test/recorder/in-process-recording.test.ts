import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, createGzip, gzipSync } from 'node:zlib';
import { setupServer } from 'msw/node';
import OpenAI from 'openai';
import { afterEach, expect, it } from 'vitest';
import { type Cassette, loadCassette } from '../../src/cassette/index.js';
import { recordingDispatcher } from '../../src/recorder/index.js';
import { cassetteDispatcher, cassetteHandlers } from '../../src/replayer/index.js';
import { benchReplayOf, startBench } from '../helpers/cli.js';
import { readBody, sleep, startServer } from '../helpers/servers.js';
import { runVitest, userProject } from '../helpers/vitest-project.js';
import { twentyExchanges } from './clients/twenty-exchanges.mjs';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A server of the four kinds the issue names: JSON (with the query and headers echoed), SSE of 50 events, gzip, a 401. */
async function mixedServer() {
  const server = await startServer(async (req, res) => {
    res.sendDate = false; // the same answer on every run: the recordings are compared byte for byte
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (let k = 0; k < 50; k++) res.write(`event: tick\nid: ${k}\ndata: {"k":${k},"text":"ü ${k}"}\n\n`);
      await sleep(5);
      res.end();
      return;
    }
    if (url.pathname === '/secret') {
      const body = JSON.stringify({ error: 'unauthorized' });
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    const answer = {
      path: url.pathname,
      v: url.searchParams.get('v'),
      trace: req.headers['x-trace'] ?? null,
      sent: (await readBody(req)).toString(),
    };
    if (url.pathname === '/gz') {
      const bytes = gzipSync(Buffer.from(JSON.stringify(answer)));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bytes.byteLength });
      res.end(bytes);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
  });
  cleanups.push(() => server.close());
  return server;
}

/** A cassette without what differs from one recording to the next: times, and when it was made. */
function withoutTimings(c: Cassette): unknown {
  return {
    ...c,
    meta: { ...c.meta, recordedAt: undefined },
    interactions: c.interactions.map(({ timing: _t, ...i }) => ({
      ...i,
      response: i.response?.stream
        ? { ...i.response, stream: { ...i.response.stream, events: i.response.stream.events.map(({ at: _a, ...e }) => e) } }
        : i.response,
    })),
  };
}

it('records the same 20 exchanges in-process (undici) as through bench proxy, timings apart, and the client sees the same', async () => {
  const server = await mixedServer();
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-in-process-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));

  const recorder = await recordingDispatcher({ target: server.url });
  const inProcessSeen = await twentyExchanges(server.url, { dispatcher: recorder });
  const inProcess = join(dir, 'in-process.yaml');
  expect(await recorder.save(inProcess)).toBe(20);

  const viaProxy = join(dir, 'proxy.yaml');
  const proxy = await startBench(['proxy', '--target', server.url, '--cassette', viaProxy, '--quiet']);
  const proxySeen = await twentyExchanges(proxy.url);
  proxy.child.kill('SIGTERM');
  expect(await proxy.exit()).toBe(0);

  // The client saw the same answers either way, and the server's own: the gzip one decoded, the 401 as sent.
  expect(inProcessSeen).toEqual(proxySeen);
  expect(inProcessSeen[14]?.match(/event: tick/g)?.length).toBe(50);
  expect(inProcessSeen[17]).toBe('401 {"error":"unauthorized"}');
  const [a, b] = [await loadCassette(inProcess), await loadCassette(viaProxy)];
  expect(a.interactions.map((i) => i.response?.stream?.events.length ?? 0)[14]).toBe(50);
  expect(a.interactions[15]?.response?.encoding).toBe('gzip');
  expect(a.interactions[0]?.request.headers).toMatchObject({ 'x-trace': 't-1', 'x-team': 'agents', 'user-agent': 'node' });
  expect(a.interactions[19]?.request.body).toEqual({ json: { hello: 'wörld' } });
  expect(withoutTimings(a)).toEqual(withoutTimings(b));

  // useCassette records the same, in-process by default and through its proxy when asked, in a user's vitest run.
  for (const via of ['in-process', 'proxy'] as const) {
    const file = join(dir, `msw-${via}.yaml`);
    await userVitestRecording(file, server.url, via);
    expect(withoutTimings(await loadCassette(file)), via).toEqual(withoutTimings(b));
  }

  // Each replays, the server gone: the in-process recording answers the same client the same through every door.
  await server.close();
  const replay = cassetteDispatcher([{ name: 'in-process', cassette: a }]);
  expect(await twentyExchanges(server.url, { dispatcher: replay })).toEqual(inProcessSeen);
  const served = await benchReplayOf(inProcess, cleanups as (() => Promise<unknown>)[]);
  expect(await twentyExchanges(served.url)).toEqual(inProcessSeen);
  const msw = setupServer(...cassetteHandlers([{ name: 'in-process', cassette: a }]).handlers);
  msw.listen({ onUnhandledRequest: 'error' });
  try {
    expect(await twentyExchanges(server.url)).toEqual(inProcessSeen);
  } finally {
    msw.close();
  }
}, 120_000);

/** A user's vitest file with `useCassette(file, { record: 'once', recordVia })`, run by a real vitest process. */
async function userVitestRecording(file: string, base: string, via: 'in-process' | 'proxy'): Promise<void> {
  const project = await userProject(`tapedeck-record-${via}-`);
  cleanups.push(() => rm(project, { recursive: true, force: true }));
  const test = `import { expect, it } from 'vitest';
import { useCassette } from 'tapedeck-bench/vitest';
const { twentyExchanges } = await import(${JSON.stringify(join(import.meta.dirname, 'clients', 'twenty-exchanges.mjs'))});
useCassette(${JSON.stringify(file)}, { record: 'once'${via === 'proxy' ? ", recordVia: 'proxy'" : ''} });
it('sends the twenty', async () => {
  const seen = await twentyExchanges(${JSON.stringify(base)});
  expect(seen[17]).toBe('401 {"error":"unauthorized"}');
});
`;
  await writeFile(join(project, 'twenty.test.ts'), test);
  const run = await runVitest(project, 'twenty.test.ts');
  expect(run.code, run.out).toBe(0);
}

it('passes a stream to the client as it comes, and a client that stops reading leaves it client-closed', async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  const server = await startServer(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: first\n\n');
    await held;
    res.end('data: never read\n\n');
  });
  cleanups.push(() => server.close());
  const recorder = await recordingDispatcher({ target: server.url });
  const res = await fetch(`${server.url}/events`, { dispatcher: recorder } as unknown as RequestInit);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  // The first event arrives while the server still holds the rest: nothing waits for the end.
  expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
  await reader.cancel();
  release();
  await recorder.close();
  const cassette = recorder.cassette();
  const stream = cassette.interactions[0]?.response?.stream;
  expect(stream?.events.map((e) => e.data)).toEqual(['first']);
  expect(stream?.end).toBe('client-closed');
});

it('records paths under a target with a prefix as the proxy does, and lets other origins through unrecorded', async () => {
  const seen: string[] = [];
  const server = await startServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  const other = await startServer((_req, res) => {
    res.end('other');
  });
  cleanups.push(
    () => server.close(),
    () => other.close(),
  );
  const recorder = await recordingDispatcher({ target: `${server.url}/api` });
  const init = { dispatcher: recorder } as unknown as RequestInit;
  expect(await (await fetch(`${server.url}/api/items?page=2`, init)).json()).toEqual({ ok: true });
  expect(await (await fetch(`${other.url}/elsewhere`, init)).text()).toBe('other');
  await recorder.close();
  expect(seen).toEqual(['/api/items?page=2']);
  const cassette = recorder.cassette();
  expect(cassette.meta.target).toBe(`${server.url}/api`);
  expect(cassette.interactions.map((i) => i.request.path)).toEqual(['/items?page=2']);
});

it('records a third-party client (the openai SDK) on two concurrent gzip streams in-process, and the SDK replays them', async () => {
  const server = await startServer(async (req, res) => {
    const { messages } = JSON.parse((await readBody(req)).toString()) as { messages: { content: string }[] };
    const word = messages[0]?.content ?? '';
    res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
    const z = createGzip();
    z.on('data', (d: Buffer) => res.write(d));
    z.on('end', () => res.end());
    for (let k = 0; k < 20; k++) {
      const chunk = {
        id: `c-${word}`,
        object: 'chat.completion.chunk',
        created: 1,
        model: 'm',
        choices: [{ index: 0, delta: { content: `${word}${k} ` }, finish_reason: null }],
      };
      z.write(`data: ${JSON.stringify(chunk)}\n\n`);
      await new Promise<void>((r) => z.flush(constants.Z_SYNC_FLUSH, () => r()));
      await sleep(2);
    }
    z.end('data: [DONE]\n\n');
  });
  cleanups.push(() => server.close());
  const say = async (client: OpenAI, word: string) => {
    let text = '';
    const stream = await client.chat.completions.create({ model: 'm', stream: true, messages: [{ role: 'user', content: word }] });
    for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    return text;
  };
  const recorder = await recordingDispatcher({ target: server.url });
  const live = new OpenAI({
    apiKey: 'sk-test',
    baseURL: `${server.url}/v1`,
    maxRetries: 0,
    fetchOptions: { dispatcher: recorder } as never,
  });
  // Two connections at once, each stream passed on to the SDK as it comes.
  const seen = await Promise.all([say(live, 'alpha'), say(live, 'beta')]);
  expect(seen[0]).toBe(Array.from({ length: 20 }, (_, k) => `alpha${k} `).join(''));
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-in-process-sdk-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'openai.yaml');
  await recorder.save(file);
  const cassette = await loadCassette(file);
  expect(cassette.interactions).toHaveLength(2);
  for (const i of cassette.interactions) {
    expect(i.response?.encoding).toBe('gzip');
    expect(i.response?.stream?.events).toHaveLength(21);
    expect(JSON.stringify(i.request.headers)).not.toContain('sk-test'); // the saved cassette is redacted, as the proxy's is
  }
  await server.close();
  const replay = cassetteDispatcher([{ name: 'openai', cassette }]);
  const offline = new OpenAI({
    apiKey: 'sk-test',
    baseURL: `${server.url}/v1`,
    maxRetries: 0,
    fetchOptions: { dispatcher: replay } as never,
  });
  expect(await Promise.all([say(offline, 'alpha'), say(offline, 'beta')])).toEqual(seen);
});

it('passes header bytes on as the server sent them: a raw UTF-8 file name and a repeated header reach fetch as they do without it', async () => {
  // Node writes a header string as latin1: this one goes out as the UTF-8 bytes of the name, as many servers send it.
  const disposition = Buffer.from('attachment; filename="résumé – ü.txt"').toString('latin1');
  const server = await startServer((_req, res) => {
    res.setHeader('content-disposition', disposition);
    res.setHeader('x-tag', ['one', 'two']);
    res.end('ok');
  });
  cleanups.push(() => server.close());
  const seenBy = async (init: RequestInit) => {
    const res = await fetch(`${server.url}/file`, init);
    await res.text();
    return [res.headers.get('content-disposition'), res.headers.get('x-tag')];
  };
  const direct = await seenBy({});
  const recorder = await recordingDispatcher({ target: server.url });
  expect(await seenBy({ dispatcher: recorder } as unknown as RequestInit)).toEqual(direct);
  expect(direct).toEqual([disposition, 'one, two']);
  await recorder.close();
});
