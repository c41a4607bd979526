import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCassette, serializeCassette } from '../../src/cassette/index.js';
import { type LongRunning, runBench, startBench } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/servers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sseServer(onStream: (res: ServerResponse) => void): Promise<TestServer> {
  const server = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    onStream(res);
  });
  cleanups.push(() => server.close());
  return server;
}

async function startProxy(target: string, cassette: string): Promise<LongRunning> {
  const proxy = await startBench(['proxy', '--target', target, '--port', '0', '--cassette', cassette]);
  cleanups.push(() => {
    if (proxy.child.exitCode === null) proxy.child.kill('SIGKILL');
  });
  return proxy;
}

describe('bench proxy', () => {
  it('prints its URL first, and on SIGTERM ends open streams and writes a complete cassette', async () => {
    const server = await sseServer((res) => {
      for (let k = 0; k < 3; k++) res.write(`event: tick\ndata: ${k}\n\n`);
    });
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-proxy-'));
    const file = join(dir, 'open.yaml');
    const proxy = await startProxy(server.url, file);
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const res = await fetch(`${proxy.url}/stream`);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    while (!seen.includes('data: 2\n\n')) seen += new TextDecoder().decode((await reader.read()).value);
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    // The client's stream ends cleanly rather than hanging.
    while (!(await reader.read()).done);

    const cassette = await loadCassette(file);
    const stream = cassette.interactions[0]?.response?.stream;
    expect(stream?.end).toBe('proxy-closed');
    expect(stream?.events.map((e) => e.data)).toEqual(['0', '1', '2']);
    expect(proxy.stderr()).toContain(`wrote ${file} (1 interactions)`);
    expect(await readdir(dir)).toEqual(['open.yaml']);
  });

  it('leaves the previous cassette intact when killed in the middle of a save, and the journal recovers the recording', async () => {
    // A long stream makes the save take long enough to be interrupted.
    const payload = JSON.stringify({ type: 'response.output_text.delta', delta: 'x'.repeat(200) });
    const server = await sseServer((res) => {
      for (let k = 0; k < 60_000; k++) res.write(`event: response.output_text.delta\ndata: ${payload}\n\n`);
      res.end();
    });
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-proxy-'));
    const file = join(dir, 'kept.yaml');
    const previous = serializeCassette({
      version: 1,
      meta: { recorder: 'earlier run', target: server.url, recordedAt: '2026-01-01T00:00:00.000Z' },
      interactions: [],
    });
    await writeFile(file, previous);

    const proxy = await startProxy(server.url, file);
    const res = await fetch(`${proxy.url}/stream`);
    await res.arrayBuffer();
    proxy.child.kill('SIGTERM');
    await proxy.waitForStderr('saving cassette');
    proxy.child.kill('SIGKILL');
    expect(await proxy.exit()).toBe(null);

    expect(await readFile(file, 'utf8')).toBe(previous);
    expect((await loadCassette(file)).meta.recorder).toBe('earlier run');

    // The journal still holds the recording; a new proxy will not start over it.
    const refused = await runBench(['proxy', '--target', server.url, '--port', '0', '--cassette', file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/kept\.yaml\.journal holds a recording that was never saved .* run `bench recover /);
    const recovered = await runBench(['recover', file]);
    expect(recovered.code).toBe(0);
    expect((await loadCassette(file)).interactions[0]?.response?.stream?.events).toHaveLength(60_000);
    // The save cleared the temp file the killed writer left, and the journal is gone.
    expect(await readdir(dir)).toEqual(['kept.yaml']);
  });

  it('refuses bad flags with one line and exit 2', async () => {
    const r = await runBench(['proxy', '--target', 'ftp://x', '--cassette', 'c.yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('bench: --target must be an http:// or https:// URL, got ftp://\n');
    const p = await runBench(['proxy', '--target', 'http://127.0.0.1:1', '--cassette', 'c.yaml', '--port', 'abc']);
    expect(p.stderr).toBe('bench: --port "abc" is not a port; use a number from 0 (any free port) to 65535\n');
    expect(p.code).toBe(2);
  });
});
