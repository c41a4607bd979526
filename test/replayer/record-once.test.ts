import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sleep, startServer } from '../helpers/servers.js';

/**
 * A user's vitest file with `record: 'once'`, run by a real vitest process as
 * a user runs it: the first run records from a live SSE server, the second
 * replays with the server gone, and under CI=true a missing cassette fails.
 */

const ROOT = resolve(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const userTest = (source: string) => `
import { describe, expect, it } from 'vitest';
const { useCassette } = await import(${JSON.stringify(source)});

// Relative to this file, as a user writes it.
useCassette('./cassettes/greeting.yaml', { record: 'once' });

describe('a client of a streaming server', () => {
  it('reads a JSON answer and an SSE stream', async () => {
    const base = process.env.GREETING_URL;
    expect(await (await fetch(base + '/hello')).json()).toEqual({ hello: 'world' });
    const res = await fetch(base + '/events');
    const reader = res.body.getReader();
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toBe('event: n\\ndata: {"n":1}\\n\\nevent: n\\ndata: {"n":2}\\n\\nevent: n\\ndata: {"n":3}\\n\\n');
  });
});
`;

function runVitest(cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--root', cwd, '--config', join(cwd, 'vitest.config.mjs')],
      { cwd, env: { ...process.env, ...env, FORCE_COLOR: '0', NO_COLOR: '1' }, timeout: 60_000 },
      (err, stdout, stderr) => done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describe("useCassette record: 'once'", () => {
  it('records from the live server on the first run, replays with it stopped, and fails under CI=true when the cassette is missing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-once-'));
    dirs.push(dir);
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    await writeFile(join(dir, 'vitest.config.mjs'), "export default { test: { include: ['*.test.mjs'] } };\n");
    await writeFile(join(dir, 'greeting.test.mjs'), userTest(join(ROOT, 'dist', 'vitest', 'index.js')));
    const server = await startServer(async (req, res) => {
      if (req.url === '/hello') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"hello":"world"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const n of [1, 2, 3]) {
        res.write(`event: n\ndata: {"n":${n}}\n\n`);
        await sleep(30);
      }
      res.end();
    });
    const cassette = join(dir, 'cassettes', 'greeting.yaml');
    const env = { GREETING_URL: server.url, CI: '' };
    try {
      const first = await runVitest(dir, env);
      expect(first.out).toContain('1 passed');
      expect(first.code).toBe(0);
      expect(existsSync(cassette)).toBe(true);
      const text = await readFile(cassette, 'utf8');
      expect(text).toContain('"/hello"');
      expect(text.match(/event: "n"/g)).toHaveLength(3);
    } finally {
      await server.close();
    }

    // The server is gone: only the cassette can answer.
    const second = await runVitest(dir, env);
    expect(second.out).toContain('1 passed');
    expect(second.code).toBe(0);

    await rm(cassette);
    const ci = await runVitest(dir, { ...env, CI: 'true' });
    expect(ci.code).not.toBe(0);
    expect(ci.out).toContain(
      `CI=true replays only, and ${cassette} is missing: record it where the server runs (record: 'once') and commit it`,
    );
    expect(existsSync(cassette)).toBe(false);
  }, 120_000);

  it("record: 'missing' replays what the cassette holds and adds what it lacks, asking the server only for that", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-missing-'));
    dirs.push(dir);
    await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    await writeFile(join(dir, 'vitest.config.mjs'), "export default { test: { include: ['*.test.mjs'] } };\n");
    await writeFile(
      join(dir, 'pages.test.mjs'),
      `
import { expect, it } from 'vitest';
const { useCassette } = await import(${JSON.stringify(join(ROOT, 'dist', 'vitest', 'index.js'))});
useCassette('./cassettes/pages.yaml', { record: 'missing' });
it('reads the pages it is told to', async () => {
  for (const page of process.env.PAGES.split(',')) {
    const res = await fetch(process.env.PAGES_URL + '/' + page);
    expect(await res.text()).toBe(page === 'stream' ? 'data: one\\n\\ndata: two\\n\\n' : 'page ' + page);
  }
});
`,
    );
    const asked: string[] = [];
    const server = await startServer(async (req, res) => {
      asked.push(req.url as string);
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
        await sleep(20);
        res.end('data: two\n\n');
        return;
      }
      res.end(`page ${(req.url as string).slice(1)}`);
    });
    const cassette = join(dir, 'cassettes', 'pages.yaml');
    const env = { PAGES_URL: server.url, CI: '' };
    try {
      const first = await runVitest(dir, { ...env, PAGES: 'a' });
      expect([first.code, first.out]).toEqual([0, expect.stringContaining('1 passed')]);
      expect(asked).toEqual(['/a']);
      const before = await readFile(cassette, 'utf8');

      // /a comes from the cassette; only /b and the stream reach the server, and join the cassette after /a.
      const second = await runVitest(dir, { ...env, PAGES: 'a,b,stream' });
      expect([second.code, second.out]).toEqual([0, expect.stringContaining('1 passed')]);
      expect(asked).toEqual(['/a', '/b', '/stream']);
      const after = await readFile(cassette, 'utf8');
      expect(after.match(/seq: \d+/g)).toEqual(['seq: 1', 'seq: 2', 'seq: 3']);
      expect(after.indexOf('"/a"')).toBeLessThan(after.indexOf('"/b"'));
      expect(before.split('\n').filter((l) => l.includes('"/a"'))).toEqual(after.split('\n').filter((l) => l.includes('"/a"')));
    } finally {
      await server.close();
    }

    // The server is gone: all three come from the cassette, in any order.
    const third = await runVitest(dir, { ...env, PAGES: 'stream,b,a' });
    expect([third.code, third.out]).toEqual([0, expect.stringContaining('1 passed')]);
    // Under CI=true a page the cassette lacks is a miss, not a recording.
    const ci = await runVitest(dir, { ...env, PAGES: 'a,c', CI: 'true' });
    expect(ci.code).not.toBe(0);
    expect(ci.out).toContain('no recorded interaction matches GET /c');
    expect((await readFile(cassette, 'utf8')).includes('"/c"')).toBe(false);
  }, 120_000);
});
