import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { benchProxyUnderWrapper, startBench } from '../helpers/cli.js';
import { startServer } from '../helpers/servers.js';

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

    const replay = await startBench(['replay', '--quiet', proxy.file]);
    cleanups.push(async () => {
      replay.child.kill('SIGTERM');
      await replay.exit();
    });
    expect(await headOf(replay.url)).toEqual(direct);
  });
});

describe('HTTP trailers', () => {
  it('reach a curl client through bench proxy, and the log names them (never their values) once', async () => {
    const upstream = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', trailer: 'x-checksum' });
      res.write('part one, ');
      res.addTrailers({ 'x-checksum': 'sha-0f1e2d' });
      res.end('part two');
    });
    cleanups.push(() => upstream.close());
    const raw = async (url: string) => (await run('curl', ['-sS', '--raw', '-D', '-', `${url}/sum`])).stdout as string;
    const direct = await raw(upstream.url);
    expect(direct).toMatch(/\r\nx-checksum: sha-0f1e2d\r\n/);

    const proxy = await benchProxyUnderWrapper(upstream.url, 'trailers.yaml', cleanups);
    for (let i = 0; i < 2; i++) {
      const through = await raw(proxy.url);
      expect(through).toMatch(/\r\ntrailer: x-checksum\r\n/i);
      expect(through).toMatch(/\r\n\r\n[0-9a-f]+\r\npart one, \r\n[\s\S]*part two\r\n0\r\nx-checksum: sha-0f1e2d\r\n\r\n$/);
    }
    await proxy.bench.waitFor(/HTTP trailers \(x-checksum\)/);
    process.kill(proxy.bench.wrapperPid, 'SIGTERM');
    await proxy.bench.ended;
    expect(proxy.bench.stderr().match(/HTTP trailers/g)).toHaveLength(1);
    expect(proxy.bench.stderr()).not.toContain('sha-0f1e2d');
  });
});
