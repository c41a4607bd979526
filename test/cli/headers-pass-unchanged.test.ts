import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCassette } from '../../src/cassette/index.js';
import { cassetteDispatcher } from '../../src/replayer/index.js';
import { benchProxyUnderWrapper, benchReplayOf, runBench, startBench } from '../helpers/cli.js';
import { sleep, startServer } from '../helpers/servers.js';

const run = promisify(execFile);

/**
 * A server that writes its head byte by byte as given: a file name in raw
 * UTF-8 after its content-length (as many servers send it), a Latin-1 byte,
 * and the request's own `x-name` bytes sent back.
 */
async function rawServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = net.createServer((socket) => {
    let pending = Buffer.alloc(0);
    socket.on('data', (data) => {
      pending = Buffer.concat([pending, data]);
      for (let end = pending.indexOf('\r\n\r\n'); end !== -1; end = pending.indexOf('\r\n\r\n')) {
        const head = pending.subarray(0, end);
        pending = pending.subarray(end + 4);
        const name = /\r\nx-name: ([^\r]*)/i.exec(head.toString('latin1'))?.[1] ?? '';
        socket.write(
          Buffer.concat([
            Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n'),
            Buffer.from('content-disposition: attachment; filename="naïve €.txt"\r\n', 'utf8'),
            Buffer.from('x-latin: caf\xe9\r\n', 'latin1'),
            Buffer.from(`x-name-back: ${name}\r\n\r\nok`, 'latin1'),
          ]),
        );
      }
    });
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

/** The response head curl printed, as bytes read one to one, without the lines that change from run to run. */
async function headOf(url: string): Promise<string[]> {
  const { stdout } = await run('curl', ['-sS', '-D', '-', '-o', '/dev/null', '-H', 'x-name: Zoë 東京', `${url}/file`], {
    encoding: 'buffer',
  });
  return (stdout as Buffer)
    .toString('latin1')
    .split('\r\n')
    .filter((line) => /^(content-disposition|x-latin|x-name-back|content-length):/i.test(line))
    .map((line) => line.replace(/^[^:]+/, (n) => n.toLowerCase()))
    .sort();
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('header bytes outside ASCII', () => {
  it('pass through bench proxy and come back from bench replay byte for byte, with a curl client', async () => {
    const upstream = await rawServer();
    cleanups.push(upstream.close);
    const direct = await headOf(upstream.url);
    // The server saw curl's UTF-8 and sent it back: the reference is the bytes themselves.
    expect(direct).toContain(`x-name-back: ${Buffer.from('Zoë 東京').toString('latin1')}`);
    expect(direct).toContain(`content-disposition: attachment; filename="${Buffer.from('naïve €.txt').toString('latin1')}"`);

    const proxy = await benchProxyUnderWrapper(upstream.url, 'bytes.yaml', cleanups);
    expect(await headOf(proxy.url)).toEqual(direct);
    process.kill(proxy.bench.wrapperPid, 'SIGTERM');
    await proxy.bench.ended;
    expect(existsSync(proxy.file)).toBe(true);

    const replay = await benchReplayOf(proxy.file, cleanups);
    expect(await headOf(replay.url)).toEqual(direct);
  });
});

describe('HTTP trailers', () => {
  const KEY = 'sk-live-4fT9qLm2Xw8RzB7pKd3N';
  /** A server that ends its body with a checksum and a key in trailers, as the real one did to curl. */
  async function trailingServer() {
    const upstream = await startServer((req, res) => {
      // The same ending after a plain body and after an SSE stream.
      const sse = req.url === '/events';
      res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'text/plain', trailer: 'x-checksum, x-api-key' });
      res.write(sse ? 'data: part one\n\n' : 'part one, ');
      res.addTrailers({ 'x-checksum': 'sha-0f1e2d', 'x-api-key': KEY });
      res.end(sse ? 'data: part two\n\n' : 'part two');
    });
    cleanups.push(() => upstream.close());
    return upstream;
  }
  /** The chunked body and trailers as curl got them off the wire. */
  const raw = async (url: string, path = '/sum') => (await run('curl', ['-sS', '--raw', '-D', '-', `${url}${path}`])).stdout as string;
  const trailersIn = (text: string) => (/\r\n0\r\n(.*)\r\n\r\n$/s.exec(text)?.[1] ?? '').split('\r\n').sort();
  /** The names the `Trailer` header announced, and the body's chunks joined (chunk sizes are the sender's own). */
  const announced = (text: string) => (/\r\ntrailer: ([^\r]*)\r\n/i.exec(text)?.[1] ?? '').split(/,\s*/).sort();
  const bodyOf = (text: string) => {
    let rest = text.slice(text.indexOf('\r\n\r\n') + 4);
    let body = '';
    for (let size = Number.parseInt(rest, 16); size > 0; size = Number.parseInt(rest, 16)) {
      const start = rest.indexOf('\r\n') + 2;
      body += rest.slice(start, start + size);
      rest = rest.slice(start + size + 2);
    }
    return body;
  };

  it('reach a curl client through bench proxy, are saved (a secret one redacted), and come back from bench replay and the undici door', async () => {
    const upstream = await trailingServer();
    const direct = await raw(upstream.url);
    expect(trailersIn(direct)).toEqual([`x-api-key: ${KEY}`, 'x-checksum: sha-0f1e2d']);
    expect(bodyOf(direct)).toBe('part one, part two');

    const proxy = await benchProxyUnderWrapper(upstream.url, 'trailers.yaml', cleanups);
    const through = await raw(proxy.url);
    expect(announced(through)).toEqual(['x-api-key', 'x-checksum']);
    expect(bodyOf(through)).toBe('part one, part two');
    expect(trailersIn(through)).toEqual(trailersIn(direct));
    const stream = await raw(proxy.url, '/events');
    expect(bodyOf(stream)).toBe('data: part one\n\ndata: part two\n\n');
    expect(trailersIn(stream)).toEqual(trailersIn(direct));
    process.kill(proxy.bench.wrapperPid, 'SIGTERM');
    await proxy.bench.ended;
    expect(await readFile(proxy.file, 'utf8')).not.toContain(KEY.slice(8));
    const saved = { 'x-api-key': '<redacted:x-api-key>', 'x-checksum': 'sha-0f1e2d' };
    expect((await loadCassette(proxy.file)).interactions.map((i) => i.response?.trailers)).toEqual([saved, saved]);

    const replay = await benchReplayOf(proxy.file, cleanups);
    const replayed = await raw(replay.url);
    expect(announced(replayed)).toEqual(['x-api-key', 'x-checksum']);
    expect(bodyOf(replayed)).toBe('part one, part two');
    expect(trailersIn(replayed)).toEqual(['x-api-key: <redacted:x-api-key>', 'x-checksum: sha-0f1e2d']);
    const replayedStream = await raw(replay.url, '/events');
    expect(announced(replayedStream)).toEqual(['x-api-key', 'x-checksum']);
    expect(bodyOf(replayedStream)).toBe('data: part one\n\ndata: part two\n\n');
    expect(trailersIn(replayedStream)).toEqual(trailersIn(replayed));

    const dispatcher = cassetteDispatcher([{ name: 'trailers.yaml', cassette: await loadCassette(proxy.file) }]);
    for (const [path, body] of [
      ['/sum', 'part one, part two'],
      ['/events', 'data: part one\n\ndata: part two\n\n'],
    ]) {
      const res = await request(`http://api.test${path}`, { dispatcher });
      expect(await res.body.text()).toBe(body);
      expect(res.trailers).toEqual(saved);
    }
  });

  it('survive a SIGKILLed bench proxy in its journal, redacted, and bench recover saves them', async () => {
    const upstream = await trailingServer();
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-trailers-'));
    const file = join(dir, 'killed.yaml');
    const bench = await startBench(['proxy', '--target', upstream.url, '--port', '0', '--cassette', file]);
    cleanups.push(async () => {
      if (bench.child.exitCode === null) bench.child.kill('SIGKILL');
      await bench.exit();
    });
    expect(trailersIn(await raw(bench.url))).toEqual([`x-api-key: ${KEY}`, 'x-checksum: sha-0f1e2d']);
    // The journal is written within a few windows of 20 ms.
    for (let waited = 0; !(await readFile(`${file}.journal`, 'utf8')).includes('x-checksum') && waited < 5000; waited += 50)
      await sleep(50);
    bench.child.kill('SIGKILL');
    await bench.exit();
    expect(await readFile(`${file}.journal`, 'utf8')).not.toContain(KEY.slice(8));
    expect((await runBench(['recover', file])).code).toBe(0);
    expect((await loadCassette(file)).interactions[0]?.response?.trailers).toEqual({
      'x-checksum': 'sha-0f1e2d',
      'x-api-key': '<redacted:x-api-key>',
    });
  });
});
