import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { serializeCassette } from '../../src/cassette/index.js';
import { jsonGet } from '../helpers/cassettes.js';
import { benchProxyUnderWrapper, benchReplayOf } from '../helpers/cli.js';
import { startServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * Python's http.client on one connection: a request, `idle` seconds of nothing, a second request on the same socket.
 * A server that closed the idle socket in between makes the second one fail (RemoteDisconnected): Node's default
 * closes it after about 6 s, racing clients that keep idle connections longer (Go, urllib3).
 */
const TWO_REQUESTS = `
import http.client, sys, time, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
conn.request('GET', '/v1/hello')
first = conn.getresponse(); first.read()
time.sleep(float(sys.argv[2]))
conn.request('GET', '/v1/hello')
second = conn.getresponse()
print(first.status, second.status, second.read().decode())
`;

describe('idle client connections', () => {
  it('bench replay and bench proxy keep an idle keep-alive connection longer than the 6 s Node allows by default', async () => {
    const origin = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"hello":"world"}');
    });
    cleanups.push(() => origin.close());
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-idle-'));
    const file = join(dir, 'hello.yaml');
    await writeFile(file, serializeCassette(jsonGet('/v1/hello', { hello: 'world' })));
    const replay = await benchReplayOf(file, cleanups);
    const proxy = await benchProxyUnderWrapper(origin.url, 'idle.yaml', cleanups);
    const twoRequests = (url: string) => promisify(execFile)('/usr/bin/python3', ['-c', TWO_REQUESTS, url, '7.5']);
    const [replayed, proxied] = await Promise.all([twoRequests(replay.url), twoRequests(proxy.url)]);
    expect(replayed.stdout.trim()).toBe('200 200 {"hello":"world"}');
    expect(proxied.stdout.trim()).toBe('200 200 {"hello":"world"}');
  }, 30_000);
});
