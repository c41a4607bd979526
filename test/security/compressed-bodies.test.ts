import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCassette, parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { cassetteDispatcher } from '../../src/replayer/index.js';
import { benchProxyUnderWrapper, benchReplayOf, runBench } from '../helpers/cli.js';
import { readBody, sleep, startServer } from '../helpers/servers.js';

const run = promisify(execFile);

/**
 * A client that compresses its request bodies (Python's gzip and zlib, curl
 * with a brotli file): the credentials inside must not reach the cassette or
 * the journal as compressed bytes nobody reads, and a later run of the same
 * client, whose gzip header carries another time, must still replay.
 */

const KEY = 'sk-proj-Zq8Xw2Lm4Np6Rt0Vb3Cd5Fg7Hj9Kl1Mn';
const PASSWORD = 'tr0ub4dor&3-horse';
const CONTENT = JSON.stringify({ user: 'bob', api_key: KEY, password: PASSWORD, note: 'keep this' });

/** Python posting `CONTENT` compressed with `coding` (gzip stamped with `mtime`), as urllib sends it. */
async function pythonPost(url: string, coding: 'gzip' | 'deflate', mtime = 1): Promise<{ status: number; body: string }> {
  const script = `
import gzip, sys, urllib.request, urllib.error, zlib
content = sys.argv[3].encode()
data = gzip.compress(content, mtime=int(sys.argv[4])) if sys.argv[2] == 'gzip' else zlib.compress(content)
req = urllib.request.Request(sys.argv[1], data=data, method='POST', headers={'content-type': 'application/json', 'content-encoding': sys.argv[2]})
try:
    res = urllib.request.urlopen(req)
    print(res.status); print(res.read().decode())
except urllib.error.HTTPError as e:
    print(e.code); print(e.read().decode())
`;
  const { stdout } = await run('python3', ['-c', script, url, coding, CONTENT, String(mtime)]);
  const [status, ...rest] = stdout.trim().split('\n');
  return { status: Number(status), body: rest.join('\n') };
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('a compressed request body', () => {
  it('is recorded as its content, redacted in the cassette and the journal, the server getting the bytes as sent; a later run replays', async () => {
    const received: string[] = [];
    const upstream = await startServer(async (req, res) => {
      const body = await readBody(req);
      received.push(createHash('sha256').update(body).digest('hex'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, coding: req.headers['content-encoding'] }));
    });
    cleanups.push(() => upstream.close());
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-compressed-'));
    const brotli = brotliCompressSync(Buffer.from(CONTENT));
    await writeFile(join(dir, 'body.br'), brotli);

    const proxy = await benchProxyUnderWrapper(upstream.url, 'compressed.yaml', cleanups);
    expect(await pythonPost(`${proxy.url}/login/gzip`, 'gzip')).toEqual({ status: 200, body: '{"ok":true,"coding":"gzip"}' });
    expect(await pythonPost(`${proxy.url}/login/deflate`, 'deflate')).toEqual({ status: 200, body: '{"ok":true,"coding":"deflate"}' });
    const curl = ['-sS', '-H', 'content-type: application/json', '-H', 'content-encoding: br', '--data-binary', `@${join(dir, 'body.br')}`];
    expect((await run('curl', [...curl, `${proxy.url}/login/br`])).stdout).toBe('{"ok":true,"coding":"br"}');
    // The server got each body byte for byte as the client compressed it.
    expect(received[2]).toBe(createHash('sha256').update(brotli).digest('hex'));

    // Within a few journal windows, every request body is on disk, redacted.
    const journalFile = `${proxy.file}.journal`;
    for (let waited = 0; (await readFile(journalFile, 'utf8')).split('request-body').length < 4 && waited < 5000; waited += 50)
      await sleep(50);
    const journal = await readFile(journalFile, 'utf8');
    expect(journal).toContain('keep this');
    for (const secret of [KEY, PASSWORD]) expect(journal).not.toContain(secret);
    // What a SIGKILL would leave: the journal alone, recovered.
    await writeFile(join(dir, 'recovered.yaml.journal'), journal);
    expect((await runBench(['recover', join(dir, 'recovered.yaml')])).code).toBe(0);
    const recovered = (await loadCassette(join(dir, 'recovered.yaml'))).interactions.map((i) => i.request);
    expect(recovered.map((r) => [r.encoding, r.body])).toEqual(
      ['gzip', 'deflate', 'br'].map((coding) => [
        coding,
        expect.objectContaining({ json: expect.objectContaining({ note: 'keep this' }) }),
      ]),
    );

    process.kill(proxy.bench.wrapperPid, 'SIGTERM');
    await proxy.bench.ended;
    const saved = await readFile(proxy.file, 'utf8');
    for (const secret of [KEY, PASSWORD]) expect(saved).not.toContain(secret);
    const requests = (await loadCassette(proxy.file)).interactions.map((i) => i.request);
    expect(requests.map((r) => r.encoding)).toEqual(['gzip', 'deflate', 'br']);
    for (const r of requests)
      expect(r.body).toEqual({ json: { user: 'bob', api_key: '<redacted:api_key>', password: '<redacted:password>', note: 'keep this' } });
    const scan = await runBench(['scan', proxy.file]);
    expect(scan.code).toBe(0);

    // The next run compresses the same content with another timestamp: other bytes, the same request.
    const replay = await benchReplayOf(proxy.file, cleanups);
    expect(await pythonPost(`${replay.url}/login/gzip`, 'gzip', 1_800_000_000)).toEqual({
      status: 200,
      body: '{"ok":true,"coding":"gzip"}',
    });
    expect(await pythonPost(`${replay.url}/login/deflate`, 'deflate')).toEqual({ status: 200, body: '{"ok":true,"coding":"deflate"}' });
    expect((await run('curl', [...curl, `${replay.url}/login/br`])).stdout).toBe('{"ok":true,"coding":"br"}');
  });
});

/**
 * The text a tapedeck from before decision 0015 wrote for one POST whose body the client gzipped: the bytes, in
 * base64 (the earlier writer kept them so; the pass that writes it here sees no more inside them than it did).
 */
function writtenBeforeDecoding(path: string, sent: Buffer, answer: unknown): string {
  return serializeCassette({
    version: 1,
    meta: { recorder: 'an earlier tapedeck', target: 'http://api.test', recordedAt: '2026-11-01T00:00:00.000Z' },
    interactions: [
      {
        seq: 1,
        request: {
          method: 'POST',
          path,
          headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' },
          body: { base64: sent.toString('base64') },
        },
        response: { status: 200, headers: { 'content-type': 'application/json' }, body: { json: answer } },
        timing: { start: 0 },
      },
    ],
  });
}

describe('a compressed request body recorded before it was decoded', () => {
  it('still matches the same bytes: the bytes are tried when the content matches nothing', async () => {
    const sent = gzipSync(Buffer.from('{"q":"tea"}'));
    const cassette = parseCassette(writtenBeforeDecoding('/search', sent, { hits: 1 }));
    const dispatcher = cassetteDispatcher([{ name: 'old.yaml', cassette }]);
    const res = await request('http://api.test/search', {
      method: 'POST',
      headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' },
      body: sent,
      dispatcher,
    });
    expect(await res.body.json()).toEqual({ hits: 1 });
  });
});

describe('a body in a content coding tapedeck cannot decode', () => {
  it('passes byte for byte, and bench proxy and bench scan both say that nothing in it was redacted', async () => {
    // A zstd frame (magic, a one-byte size, one compressed-looking block): Node 20 has no zstd.
    const opaque = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x20, 40]), Buffer.from([1 | (40 << 3), 0, 0]), randomBytes(40)]);
    const upstream = await startServer(async (req, res) => {
      await readBody(req);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'zstd' });
      res.end(opaque);
    });
    cleanups.push(() => upstream.close());
    const got = async (url: string) => Buffer.from((await run('curl', ['-sS', `${url}/data`], { encoding: 'buffer' })).stdout);

    const proxy = await benchProxyUnderWrapper(upstream.url, 'zstd.yaml', cleanups);
    expect(await got(proxy.url)).toEqual(opaque);
    expect(await got(proxy.url)).toEqual(opaque);
    process.kill(proxy.bench.wrapperPid, 'SIGTERM');
    await proxy.bench.ended;
    // Said once, naming the coding and what to do.
    expect(proxy.bench.stderr().match(/in zstd, a content coding tapedeck cannot decode/g)).toHaveLength(1);
    expect(proxy.bench.stderr()).toMatch(/nothing in it is redacted \(have the client ask for gzip or br/);

    const scan = await runBench(['scan', proxy.file]);
    expect(scan.stderr).toMatch(
      /#1's response body is in zstd, a content coding tapedeck cannot decode: it was neither redacted nor searched/,
    );
    expect(scan.stderr).toMatch(/#2's response body is in zstd/);

    const replay = await benchReplayOf(proxy.file, cleanups);
    expect(await got(replay.url)).toEqual(opaque);
  });
});

describe('bench scan over a cassette recorded before compressed requests were decoded', () => {
  it('decodes a compressed body kept as its bytes and reports the secrets inside, at the line of that body', async () => {
    const sent = gzipSync(Buffer.from(CONTENT));
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-old-gzip-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'old.yaml');
    await writeFile(file, writtenBeforeDecoding('/login', sent, { ok: true }));
    const text = await readFile(file, 'utf8');
    // The state such a recording was left in: both secrets in the file, one gunzip away.
    expect(text).toContain(sent.toString('base64'));
    const line = text.split('\n').findIndex((l) => l.includes(sent.toString('base64').slice(0, 60))) + 1;

    const scan = await runBench(['scan', file]);
    expect(scan.code).toBe(1);
    expect(scan.stdout).toContain(`${file}:${line}: api_key`);
    expect(scan.stdout).toContain(`${file}:${line}: password`);
  });
});
