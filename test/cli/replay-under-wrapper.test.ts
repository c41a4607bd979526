import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { benchUnderWrapper } from '../helpers/cli.js';
import { readBody, startServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const curl = promisify(execFile);
const KEY = 'Kx93vTq0LmZ7pWd2';

describe('bench replay as a script runs it', () => {
  it('serves curl clients at once (one asking for gzip, an SSE stream, a POST with another key) and stops with its wrapper', async () => {
    const server = await startServer(async (req, res) => {
      const body = await readBody(req);
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let k = 0; k < 5; k++) res.write(`event: delta\ndata: {"k":${k}}\n\n`);
        res.end();
      } else if (req.url === '/items/zipped') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(JSON.stringify({ id: 'zipped', text: 'z'.repeat(200) })));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ url: req.url, saved: body.length }));
      }
    });
    cleanups.push(() => server.close());
    const proxy = await startRecordingProxy({ target: server.url });
    await (await fetch(`${proxy.url}/items/zipped`, { headers: { 'accept-encoding': 'gzip' } })).text();
    await (await fetch(`${proxy.url}/items/plain`)).text();
    await (await fetch(`${proxy.url}/stream`)).text();
    const post = { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' } };
    await (await fetch(`${proxy.url}/notes`, { ...post, body: JSON.stringify({ note: `key ${KEY}` }) })).text();
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-replay-wrapper-'));
    const file = join(dir, 'c.yaml');
    await writeFile(file, serializeCassette(await proxy.close()));

    const bench = benchUnderWrapper(['replay', '--cassette', file, '--port', '0']);
    cleanups.push(async () => {
      if (existsSync(`/proc/${bench.wrapperPid}`)) process.kill(bench.wrapperPid, 'SIGKILL');
      await bench.ended;
    });
    const url = (await bench.waitForStdout(/listening on (\S+)\n/))[1] as string;
    const other = `${KEY.slice(0, 8)}other${KEY.slice(8)}`;
    const [zipped, plain] = await Promise.all([
      Promise.all([0, 1, 2].map(() => curl('curl', ['-sS', '--compressed', `${url}/items/zipped`]))),
      (async () => {
        const out: string[] = [];
        for (let k = 0; k < 3; k++) out.push((await curl('curl', ['-sS', `${url}/items/plain`])).stdout);
        out.push((await curl('curl', ['-sS', '-N', `${url}/stream`])).stdout);
        const args = ['-sS', '-X', 'POST', '-H', `x-api-key: ${other}`, '-H', 'content-type: application/json'];
        out.push((await curl('curl', [...args, '--data', JSON.stringify({ note: `key ${other}` }), `${url}/notes`])).stdout);
        return out;
      })(),
    ]);
    for (const z of zipped) expect(JSON.parse(z.stdout)).toEqual({ id: 'zipped', text: 'z'.repeat(200) });
    expect(plain.slice(0, 3).map((p) => JSON.parse(p))).toEqual(Array(3).fill({ url: '/items/plain', saved: 0 }));
    expect(plain[3]?.match(/^event: delta$/gm)).toHaveLength(5);
    expect(JSON.parse(plain[4] as string)).toMatchObject({ url: '/notes' });
    await bench.waitFor(/POST \/notes → c\.yaml #4 200/);

    // The script that started it goes: bench replay goes too, and its port with it.
    process.kill(bench.wrapperPid, 'SIGKILL');
    await bench.ended;
    await expect(fetch(`${url}/items/plain`)).rejects.toThrow();
  }, 60_000);
});
