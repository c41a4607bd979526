import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { connect, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { loadCassette, serializeCassette } from '../../src/cassette/index.js';
import { type LongRunning, runBench, startBench } from '../helpers/cli.js';
import { readBody, sleep, startServer, type TestServer } from '../helpers/servers.js';
import { runsOf } from '../helpers/soak.js';

const REPO = new URL('../..', import.meta.url).pathname;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const tempDir = () => mkdtemp(join(tmpdir(), 'tapedeck-survive-'));

/** An origin with a ticking SSE stream and a JSON echo, like an agent server's subscribe-then-post traffic. */
async function origin(): Promise<TestServer> {
  const server = await startServer(async (req, res) => {
    if (req.url?.startsWith('/stream')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      let k = 0;
      const t = setInterval(() => res.write(`event: tick\ndata: {"k":${k++}}\n\n`), 10);
      res.on('close', () => clearInterval(t));
      return;
    }
    const body = await readBody(req);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ got: body.toString() || null, path: req.url }));
  });
  cleanups.push(() => server.close());
  return server;
}

function track(p: LongRunning): LongRunning {
  cleanups.push(() => {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  });
  return p;
}

/** The PIDs below `pid` (children, grandchildren, ...), read from /proc. */
async function descendants(pid: number): Promise<number[]> {
  const kids = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')).split(' ').filter(Boolean).map(Number);
  return [...kids, ...(await Promise.all(kids.map(descendants))).flat()];
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/\) Z /.test(readFileSyncSafe(`/proc/${pid}/stat`));
function readFileSyncSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Reads `n` SSE events off a response body. */
async function readEvents(res: Response, n: number): Promise<string[]> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  while (text.split('\n\n').length - 1 < n) text += new TextDecoder().decode((await reader.read()).value);
  reader.cancel().catch(() => {});
  return text.split('\n\n').slice(0, n);
}

describe('bench proxy keeps the recording whatever stops it', () => {
  it('saves when a script kills the npx wrapper that started it, by the wrapper PID', async () => {
    const server = await origin();
    const dir = await tempDir();
    const file = join(dir, 'wrapped.yaml');
    const npx = spawn('npx', ['bench', 'proxy', '--target', server.url, '--port', '0', '--cassette', file], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    npx.stderr.on('data', (d) => (stderr += d));
    cleanups.push(async () => {
      for (const pid of await descendants(npx.pid as number)) process.kill(pid, 'SIGKILL');
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      npx.stdout.on('data', (d) => {
        out += d;
        const m = /listening on (\S+)\n/.exec(out);
        if (m?.[1]) resolve(m[1]);
      });
      npx.on('exit', (code) => reject(new Error(`npx exited ${code}: ${stderr}`)));
    });
    const recorder = (await descendants(npx.pid as number)).filter((pid) => readFileSyncSafe(`/proc/${pid}/cmdline`).includes('proxy'));
    expect(recorder.length).toBeGreaterThan(0);
    // Once npx is gone these are no longer its descendants: stop them by PID should the test fail half-way.
    cleanups.push(() => {
      for (const pid of recorder) if (alive(pid)) process.kill(pid, 'SIGKILL');
    });
    const events = await readEvents(await fetch(`${url}/stream`), 3);
    expect(events).toHaveLength(3);
    expect(await (await fetch(`${url}/post`, { method: 'POST', body: 'hello' })).json()).toEqual({ got: 'hello', path: '/post' });

    npx.kill('SIGTERM');
    await until('the cassette', () => existsSync(file) && !existsSync(`${file}.journal`));
    await until('the recorder to exit', () => recorder.every((pid) => !alive(pid)));
    const cassette = await loadCassette(file);
    expect(cassette.interactions.map((i) => i.request.path)).toEqual(['/stream', '/post']);
    expect(cassette.interactions[0]?.response?.stream?.events.length).toBeGreaterThanOrEqual(3);
    expect(cassette.interactions[1]?.request.body).toEqual({ text: 'hello' });
  }, 120_000);

  it('finishes the save through a second and third signal', async () => {
    const payload = JSON.stringify({ type: 'response.output_text.delta', delta: 'x'.repeat(200) });
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let k = 0; k < 60_000; k++) res.write(`event: d\ndata: ${payload}\n\n`);
      res.end();
    });
    cleanups.push(() => server.close());
    const file = join(await tempDir(), 'twice.yaml');
    const proxy = track(await startBench(['proxy', '--target', server.url, '--port', '0', '--cassette', file]));
    await (await fetch(`${proxy.url}/stream`)).arrayBuffer();
    proxy.child.kill('SIGTERM');
    await proxy.waitForStderr('saving cassette');
    proxy.child.kill('SIGINT');
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    expect(proxy.stderr()).toContain('still saving');
    expect((await loadCassette(file)).interactions[0]?.response?.stream?.events).toHaveLength(60_000);
    expect(existsSync(`${file}.journal`)).toBe(false);
  }, 120_000);

  it('after a SIGKILL at any moment, bench recover gives back every exchange and event done 200 ms before it', async () => {
    const server = await origin();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 250, max: 2500 }), async (killAfterMs) => {
        const file = join(await tempDir(), 'killed.yaml');
        const proxy = track(await startBench(['proxy', '--target', server.url, '--port', '0', '--cassette', file]));
        const seenEvents: { k: number; at: number }[] = [];
        const donePosts: { n: number; at: number }[] = [];
        const stop = new AbortController();
        const streaming = (async () => {
          const res = await fetch(`${proxy.url}/stream`, { signal: stop.signal });
          const reader = (res.body as ReadableStream<Uint8Array>).getReader();
          let text = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) return;
            text += new TextDecoder().decode(value);
            let cut = text.indexOf('\n\n');
            while (cut !== -1) {
              const m = /data: \{"k":(\d+)\}/.exec(text.slice(0, cut));
              if (m) seenEvents.push({ k: Number(m[1]), at: performance.now() });
              text = text.slice(cut + 2);
              cut = text.indexOf('\n\n');
            }
          }
        })().catch(() => {});
        const posting = (async () => {
          for (let n = 0; !stop.signal.aborted; n++) {
            await fetch(`${proxy.url}/post/${n}`, { method: 'POST', body: `post ${n}`, signal: stop.signal });
            donePosts.push({ n, at: performance.now() });
            await sleep(15);
          }
        })().catch(() => {});
        await sleep(killAfterMs);
        const killedAt = performance.now();
        proxy.child.kill('SIGKILL');
        await proxy.exit();
        stop.abort();
        await Promise.all([streaming, posting]);

        const recovered = await runBench(['recover', file]);
        expect(recovered.code, recovered.stderr).toBe(0);
        const cassette = await loadCassette(file);
        const paths = new Set(cassette.interactions.filter((i) => i.response?.body).map((i) => i.request.path));
        for (const p of donePosts.filter((p) => p.at < killedAt - 200)) expect(paths, `POST ${p.n}`).toContain(`/post/${p.n}`);
        const ks = new Set(cassette.interactions[0]?.response?.stream?.events.map((e) => JSON.parse(e.data ?? '{}').k));
        for (const e of seenEvents.filter((e) => e.at < killedAt - 200)) expect(ks, `event ${e.k}`).toContain(e.k);
        expect(await readdir(join(file, '..'))).toEqual(['killed.yaml']);
      }),
      { numRuns: runsOf(3, 20) },
    );
  }, 240_000);
});

describe('bench proxy checks --cassette before it records', () => {
  it('refuses a folder, a missing folder, an unwritable place and a file that is not a cassette, in one line, leaving nothing', async () => {
    const dir = await tempDir();
    const notCassette = join(dir, 'notes.yaml');
    await writeFile(notCassette, 'shopping: [milk]\n');
    await mkdir(join(dir, 'sub'));
    const cases: [string, RegExp][] = [
      [join(dir, 'sub'), /--cassette .*sub is a folder; name a file in it/],
      [join(dir, 'missing', 'c.yaml'), /the folder .*missing does not exist; create it first/],
      ['/proc/tapedeck.yaml', /tapedeck\.yaml\.journal cannot be created/],
      [notCassette, /notes\.yaml exists and is not a tapedeck cassette .*pass --force/],
    ];
    for (const [file, message] of cases) {
      const r = await runBench(['proxy', '--target', 'http://127.0.0.1:9', '--port', '0', '--cassette', file]);
      expect(r.code, file).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect((await readdir(dir)).sort()).toEqual(['notes.yaml', 'sub']);
    expect(await readFile(notCassette, 'utf8')).toBe('shopping: [milk]\n');

    const forced = track(
      await startBench(['proxy', '--target', 'http://127.0.0.1:9', '--port', '0', '--cassette', notCassette, '--force']),
    );
    forced.child.kill('SIGTERM');
    expect(await forced.exit()).toBe(0);
    expect((await loadCassette(notCassette)).interactions).toEqual([]);
  }, 60_000);

  it('leaves an existing cassette alone when it recorded nothing, and says so', async () => {
    const file = join(await tempDir(), 'good.yaml');
    const good = serializeCassette({
      version: 1,
      meta: { recorder: 'earlier run', target: 'http://x', recordedAt: '2026-01-01T00:00:00.000Z' },
      interactions: [
        { seq: 1, request: { method: 'GET', path: '/a', headers: {} }, response: { status: 204, headers: {} }, timing: { start: 0 } },
      ],
    });
    await writeFile(file, good);
    const proxy = track(await startBench(['proxy', '--target', 'http://127.0.0.1:9', '--port', '0', '--cassette', file]));
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    expect(proxy.stderr()).toContain(`recorded nothing; ${file} is left as it was`);
    expect(await readFile(file, 'utf8')).toBe(good);
  });
});

describe('one bad exchange never costs the others', () => {
  it('keeps an upload the client aborted as a client_aborted exchange, and everything around it', async () => {
    const server = await origin();
    const file = join(await tempDir(), 'aborted.yaml');
    const proxy = track(await startBench(['proxy', '--target', server.url, '--port', '0', '--cassette', file]));
    await fetch(`${proxy.url}/before`, { method: 'POST', body: 'one' });
    const { port } = new URL(proxy.url);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    socket.write(`POST /upload HTTP/1.1\r\nhost: x\r\ncontent-type: text/plain\r\ncontent-length: 1000000\r\n\r\n${'u'.repeat(50_000)}`);
    await sleep(200);
    socket.destroy();
    await sleep(200);
    await fetch(`${proxy.url}/after`, { method: 'POST', body: 'two' });
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    const cassette = await loadCassette(file);
    expect(cassette.interactions.map((i) => [i.request.path, i.failure?.code ?? i.response?.status])).toEqual([
      ['/before', 200],
      ['/upload', 'client_aborted'],
      ['/after', 200],
    ]);
    expect(cassette.interactions[1]?.failure?.message).toMatch(/after \d+ bytes/);
  });

  it('keeps JSON nested 3,000 deep, in a body and a WebSocket frame, as exact text', async () => {
    const deep = `${'['.repeat(3000)}1${']'.repeat(3000)}`;
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(deep);
    });
    cleanups.push(() => server.close());
    const wss = new WebSocketServer({ server: server.server });
    wss.on('connection', (ws) => ws.on('message', (m) => ws.send(m.toString())));
    const file = join(await tempDir(), 'deep.yaml');
    const proxy = track(await startBench(['proxy', '--target', server.url, '--port', '0', '--cassette', file]));
    expect(await (await fetch(`${proxy.url}/deep`, { method: 'POST', body: deep })).text()).toBe(deep);
    const ws = new WebSocket(`${proxy.url.replace('http', 'ws')}/ws`);
    await once(ws, 'open');
    ws.send(deep);
    const [echo] = await once(ws, 'message');
    expect(String(echo)).toBe(deep);
    ws.close();
    await once(ws, 'close');
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    const cassette = await loadCassette(file);
    expect(cassette.interactions[0]?.request.body).toEqual({ text: deep });
    expect(cassette.interactions[0]?.response?.body).toEqual({ text: deep });
    expect(cassette.interactions[1]?.response?.websocket?.frames.filter((f) => f.text === deep)).toHaveLength(2);
  });

  it('ends a WebSocket handshake the upstream never answers as a failure at SIGTERM, and exits', async () => {
    const silent = createTcpServer(() => {});
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    cleanups.push(() => silent.close());
    const target = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    const file = join(await tempDir(), 'pending.yaml');
    const proxy = track(await startBench(['proxy', '--target', target, '--port', '0', '--cassette', file]));
    const ws = new WebSocket(`${proxy.url.replace('http', 'ws')}/ws`);
    ws.on('error', () => {});
    await sleep(300);
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    const cassette = await loadCassette(file);
    expect(cassette.interactions.map((i) => i.failure?.code)).toEqual(['proxy_closed_during_handshake']);
  });

  it('never rewrites request paths that begin with the working folder, HOME or TMPDIR', async () => {
    const server = await origin();
    const work = await tempDir();
    const file = join(work, 'paths.yaml');
    const proxy = track(
      await startBench(['proxy', '--target', server.url, '--port', '0', '--cassette', file], {
        cwd: work,
        env: { TMPDIR: '/v1', HOME: '/app' },
      }),
    );
    const paths = [`${work}/x`, '/app/items?dir=/app', '/v1/sessions'];
    for (const p of paths) await fetch(`${proxy.url}${p}`);
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    const cassette = await loadCassette(file);
    expect(cassette.interactions.map((i) => i.request.path)).toEqual(paths);
  });

  it('forwards a curl upload over 1 MB that sends Expect: 100-continue', async () => {
    const server = await startServer(async (req, res) => {
      const body = await readBody(req);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ bytes: body.byteLength }));
    });
    cleanups.push(() => server.close());
    const dir = await tempDir();
    const upload = join(dir, 'upload.bin');
    await writeFile(upload, Buffer.alloc(2 * 1024 * 1024, 7));
    const file = join(dir, 'expect.yaml');
    const proxy = track(await startBench(['proxy', '--target', server.url, '--port', '0', '--cassette', file]));
    const { stdout } = await promisify(execFile)('curl', [
      '-sS',
      '--data-binary',
      `@${upload}`,
      '-H',
      'content-type: application/octet-stream',
      `${proxy.url}/up`,
    ]);
    expect(JSON.parse(stdout)).toEqual({ bytes: 2 * 1024 * 1024 });
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    const cassette = await loadCassette(file);
    expect(cassette.interactions[0]?.response?.status).toBe(200);
    expect(cassette.interactions[0]?.request.headers.expect).toBeUndefined();
  });
});

describe('a body too big for a cassette', () => {
  it('keeps a 400 MB download as its size and digest, the client getting every byte, and the other exchanges intact', async () => {
    const MB = 1024 * 1024;
    const block = Buffer.alloc(MB, 'z');
    const server = await startServer(async (req, res) => {
      if (req.url === '/small') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"small":true}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(400 * MB) });
      for (let k = 0; k < 400; k++) if (!res.write(block)) await once(res, 'drain');
      res.end();
    });
    cleanups.push(() => server.close());
    const file = join(await tempDir(), 'big.yaml');
    const proxy = track(await startBench(['proxy', '--target', server.url, '--port', '0', '--cassette', file]));
    await fetch(`${proxy.url}/small`);
    const reader = ((await fetch(`${proxy.url}/big`)).body as ReadableStream<Uint8Array>).getReader();
    let got = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      got += value.byteLength;
    }
    expect(got).toBe(400 * MB);
    await fetch(`${proxy.url}/small`);
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    const cassette = await loadCassette(file);
    expect(cassette.interactions.map((i) => i.request.path)).toEqual(['/small', '/big', '/small']);
    const { createHash } = await import('node:crypto');
    const digest = createHash('sha256');
    for (let k = 0; k < 400; k++) digest.update(block);
    expect(cassette.interactions[1]?.response?.body).toEqual({ omitted: { bytes: 400 * MB, sha256: digest.digest('hex') } });
    expect(cassette.interactions[2]?.response?.body).toEqual({ json: { small: true } });
  }, 120_000);
});
