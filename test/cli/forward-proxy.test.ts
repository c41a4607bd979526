import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCassette } from '../../src/cassette/index.js';
import { runBench, startBench } from '../helpers/cli.js';
import { curl, nodeFetch, recordAndReplayBehindProxy } from '../helpers/forward-proxy.js';
import { readBody, startServer } from '../helpers/servers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const tempDir = () => mkdtemp(join(tmpdir(), 'tapedeck-forward-'));

async function echo() {
  const server = await startServer(async (req, res) => {
    const body = await readBody(req);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url, got: body.byteLength }));
  });
  cleanups.push(() => server.close());
  return server;
}

describe('bench proxy as the HTTP_PROXY of real clients', () => {
  it('records curl and Node fetch (EnvHttpProxyAgent) with their origins, refuses an origin not allowed, and replays both', async () => {
    await recordAndReplayBehindProxy([curl, nodeFetch], cleanups);
  }, 120_000);

  it('forwards an absolute-form request to the origin it names, not behind the target base path', async () => {
    const server = await echo();
    const file = join(await tempDir(), 'base.yaml');
    const proxy = await startBench(['proxy', '--target', `${server.url}/base`, '--port', '0', '--cassette', file]);
    cleanups.push(() => proxy.child.kill('SIGKILL'));
    expect(JSON.parse((await curl.get(`${server.url}/x?y=1`, proxy.url)).body)).toEqual({ path: '/x?y=1', got: 0 });
    expect(await (await fetch(`${proxy.url}/y`)).json()).toEqual({ path: '/base/y', got: 0 });
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    const paths = (await loadCassette(file)).interactions.map((i) => [i.request.origin ?? null, i.request.path]);
    expect(paths).toEqual([
      [server.url, '/x?y=1'],
      [null, '/y'],
    ]);
  }, 60_000);

  it('refuses CONNECT, asterisk-form and an origin it was not given, with the fix, and still saves the rest', async () => {
    const server = await echo();
    const file = join(await tempDir(), 'refused.yaml');
    const proxy = await startBench(['proxy', '--target', server.url, '--port', '0', '--cassette', file]);
    cleanups.push(() => proxy.child.kill('SIGKILL'));
    const { port } = new URL(proxy.url);
    const raw = async (request: string) => {
      const socket = connect(Number(port), '127.0.0.1');
      socket.end(request);
      let text = '';
      socket.on('data', (d) => (text += d));
      await once(socket, 'close');
      return text;
    };
    expect(await raw('CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n')).toMatch(
      /^HTTP\/1.1 403 .*tunnel_refused.*point the client at the proxy/s,
    );
    expect(await raw('OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1.1 501 .*unsupported_request_target/s);
    expect(await raw('GET http://localhost:1/x HTTP/1.1\r\nHost: localhost:1\r\nConnection: close\r\n\r\n')).toMatch(
      /^HTTP\/1.1 403 .*--allow-origin http:\/\/localhost:1/s,
    );
    expect((await fetch(`${proxy.url}/kept`)).status).toBe(200);
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    expect((await loadCassette(file)).interactions.map((i) => i.request.path)).toEqual(['/kept']);
    expect(existsSync(`${file}.journal`)).toBe(false);
  }, 60_000);

  it('refuses an --allow-origin that is not an origin before anything is written', async () => {
    const dir = await tempDir();
    const result = await runBench([
      'proxy',
      '--target',
      'http://127.0.0.1:9',
      '--allow-origin',
      'http://x/path',
      '--cassette',
      join(dir, 'c.yaml'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/--allow-origin takes an origin alone/);
    expect(existsSync(join(dir, 'c.yaml.journal'))).toBe(false);
  });
});

describe('bench proxy says what it records', () => {
  it('prints a line per exchange (method, path, status, time, events), and none with --quiet', async () => {
    const server = await echo();
    for (const quiet of [false, true]) {
      const file = join(await tempDir(), 'lines.yaml');
      const proxy = await startBench(['proxy', '--target', server.url, '--port', '0', '--cassette', file, ...(quiet ? ['--quiet'] : [])]);
      cleanups.push(() => proxy.child.kill('SIGKILL'));
      expect((await fetch(`${proxy.url}/seen?api_key=sk-proj-${'a1B2c3D4'.repeat(4)}`)).status).toBe(200);
      proxy.child.kill('SIGTERM');
      expect(await proxy.exit()).toBe(0);
      const line = /bench proxy: GET \/seen\?api_key=(\S+) → 200 [\d.]+ ms\n/.exec(proxy.stderr());
      if (quiet) expect(line).toBeNull();
      // The key in the query shows as the recording will have it.
      else expect(decodeURIComponent(line?.[1] ?? '')).toBe('<redacted:api_key>');
    }
  }, 60_000);
});

describe('a stop during an upload', () => {
  /** A client that declares 1000 bytes, sends 10 and waits: the peer whose goodwill a stop must not wait on. */
  async function halfUpload(url: string) {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.on('error', () => {});
    cleanups.push(() => socket.destroy());
    socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n0123456789');
    await once(socket, 'connect');
  }

  for (const [how, signals] of [
    ['after the upload grace', ['SIGTERM']],
    ['at once on a second signal', ['SIGTERM', 'SIGINT']],
  ] as const) {
    it(`ends ${how}, recording the upload as cut and keeping every other exchange`, async () => {
      const server = await echo();
      const file = join(await tempDir(), 'upload.yaml');
      const grace = signals.length > 1 ? 60_000 : 1_500;
      const proxy = await startBench(['proxy', '--target', server.url, '--upload-grace', String(grace), '--port', '0', '--cassette', file]);
      cleanups.push(() => proxy.child.kill('SIGKILL'));
      expect((await fetch(`${proxy.url}/before`)).status).toBe(200);
      await halfUpload(proxy.url);
      expect(await (await fetch(`${proxy.url}/after`, { method: 'POST', body: 'abc' })).json()).toEqual({ path: '/after', got: 3 });
      const started = performance.now();
      proxy.child.kill(signals[0]);
      if (signals[1]) {
        await proxy.waitForStderr('closing open streams');
        proxy.child.kill(signals[1]);
      }
      expect(await proxy.exit()).toBe(0);
      const bound = signals.length > 1 ? 2_000 : grace + 2_000;
      expect(performance.now() - started).toBeLessThan(bound * 2); // headroom for a loaded machine; the order matters below
      const cassette = await loadCassette(file);
      // In arrival order, which for the upload and the request beside it is the network's to choose.
      const kept = cassette.interactions.map((i) => [i.request.path, i.failure?.code ?? i.response?.status]);
      expect(kept.sort()).toEqual([
        ['/after', 200],
        ['/before', 200],
        ['/upload', 'upload_aborted'],
      ]);
      expect(cassette.interactions.find((i) => i.request.path === '/upload')?.request.body).toEqual({ text: '0123456789' });
    }, 90_000);
  }
});

describe('bench recover', () => {
  it('drops a journal line a cassette cannot hold, says which and why, and saves the rest', async () => {
    const server = await echo();
    const file = join(await tempDir(), 'recover.yaml');
    const proxy = await startBench(['proxy', '--target', server.url, '--port', '0', '--cassette', file]);
    cleanups.push(() => proxy.child.kill('SIGKILL'));
    for (const p of ['/one', '/two']) expect((await fetch(`${proxy.url}${p}`)).status).toBe(200);
    const journal = `${file}.journal`;
    // The journal is written as the recording goes, a moment behind it.
    const ended = (text: string) => text.split(/"k":"(end|exchange)"/).length;
    while (ended(await readFile(journal, 'utf8')) < 5) await new Promise((r) => setTimeout(r, 50));
    proxy.child.kill('SIGKILL');
    await proxy.exit();
    // A line an older tapedeck wrote for an absolute-form request, then one torn in the middle of the file.
    const lines = (await readFile(journal, 'utf8')).split('\n');
    // An exchange that opened and ended in one window is one line (decision 0025); either spelling carries the request.
    const opened = JSON.parse(lines.find((l) => l.includes('"k":"open"') || l.includes('"k":"exchange"')) as string);
    const absolute = (request: { path: string }) => ({ ...request, path: 'http://localhost:1/x' });
    const bad = JSON.stringify(
      opened.k === 'exchange'
        ? { ...opened, seq: 99, interaction: { ...opened.interaction, seq: 99, request: absolute(opened.interaction.request) } }
        : { ...opened, seq: 99, request: absolute(opened.request) },
    );
    await writeFile(journal, [...lines.slice(0, 2), bad, '{"k":"ev', ...lines.slice(2)].join('\n'));
    const result = await runBench(['recover', file]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/recover\.yaml\.journal:3: dropped: exchange #99 cannot be kept in a cassette \(request\.path: /);
    expect(result.stderr).toMatch(/recover\.yaml\.journal:4: dropped: not JSON/);
    expect((await loadCassette(file)).interactions.map((i) => i.request.path)).toEqual(['/one', '/two']);
  }, 60_000);
});
