import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { benchProxyUnderWrapper, benchReplayOf, runBench } from '../helpers/cli.js';
import { readBody, startServer } from '../helpers/servers.js';

const run = promisify(execFile);

/**
 * A server that puts tokens everywhere a recording writes a placeholder: a query, a path, an SSE comment, a JSON
 * field, gzip on. What `bench proxy` saves, `bench scan` must pass (percent-encoded placeholders included), while
 * the identifiers a client sends back (a page token, MCP's progress token, a resume token) are kept as they were,
 * and a real credential planted by hand afterwards is still found.
 */

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const rnd = (n: number) => Array.from(randomBytes(n), (b) => ALNUM[b % ALNUM.length]).join('');

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('a fresh recording', () => {
  it('of tokens in a query, a path, an SSE comment and JSON fields scans clean, keeps the identifiers, and a planted credential is found', async () => {
    const access = rnd(40);
    const session = rnd(36);
    const nextPage = rnd(24);
    const resume = rnd(20);
    const upstream = await startServer(async (req, res) => {
      await readBody(req);
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/v1/items') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        const answer = { items: [1, 2], nextPageToken: nextPage, session_token: session, progressToken: 7, token: 'abc12' };
        res.end(gzipSync(JSON.stringify(answer)));
      } else if (url.pathname === `/v1/share/${access}/file`) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('shared');
      } else {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`: keep-alive token=${session}\n\n`);
        res.end(`event: delta\ndata: {"resume_token":"${resume}","delta":"hi"}\n\n`);
      }
    });
    cleanups.push(() => upstream.close());
    const proxy = await benchProxyUnderWrapper(upstream.url, 'tokens.yaml', cleanups);
    const curl = (path: string) => run('curl', ['-sS', '--compressed', `${proxy.url}${path}`]).then((r) => r.stdout);
    // Two clients at once, each on its own connection.
    const [items, shared] = await Promise.all([
      curl(`/v1/items?page_token=${nextPage}&access_token=${access}&limit=2`),
      curl(`/v1/share/${access}/file`),
    ]);
    const events = await curl('/v1/events');
    expect(JSON.parse(items)).toMatchObject({ nextPageToken: nextPage, progressToken: 7 });
    expect(shared).toBe('shared');
    process.kill(proxy.bench.wrapperPid, 'SIGTERM');
    await proxy.bench.ended;

    const text = await readFile(proxy.file, 'utf8');
    for (const secret of [access, session]) expect(text).not.toContain(secret);
    // The access token in the query is written percent-encoded; the scan knows that spelling of a placeholder.
    expect(text).toContain('access_token=%3Credacted%3Aaccess_token%3E');
    expect(text).toContain('/v1/share/<redacted:access_token>/file');
    // Identifiers a client sends back, and a value too short to be a credential, are kept (decision 0016).
    for (const kept of [`page_token=${nextPage}`, nextPage, resume, '"progressToken": 7', '"token": "abc12"']) expect(text).toContain(kept);
    const clean = await runBench(['scan', proxy.file]);
    expect(clean.stdout + clean.stderr).toContain('no secrets found');
    expect(clean.code).toBe(0);

    // The recording replays: the kept identifiers come back as the server sent them.
    const replay = await benchReplayOf(proxy.file, cleanups);
    const again = await run('curl', [
      '-sS',
      '--compressed',
      `${replay.url}/v1/items?page_token=${nextPage}&access_token=${rnd(40)}&limit=2`,
    ]);
    expect(JSON.parse(again.stdout)).toMatchObject({ nextPageToken: nextPage, progressToken: 7 });
    expect((await run('curl', ['-sS', `${replay.url}/v1/events`])).stdout).toBe(events.replace(session, '<redacted:session_token>'));

    // A real credential pasted in by hand afterwards is still found, at its line.
    const planted = `ghp_${rnd(36)}`;
    const edited = text.replace(`"nextPageToken": "${nextPage}"`, `"nextPageToken": "${nextPage}", "note": "${planted}"`);
    expect(edited).not.toBe(text);
    await writeFile(proxy.file, edited);
    const found = await runBench(['scan', proxy.file]);
    expect(found.code).toBe(1);
    expect(found.stdout).toMatch(/tokens\.yaml:\d+: github-pat/);
  });
});
