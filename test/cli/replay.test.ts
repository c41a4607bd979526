import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeBody, loadCassette } from '../../src/cassette/index.js';
import { type LongRunning, runBench, startBench } from '../helpers/cli.js';
import { readBody, startServer } from '../helpers/servers.js';

const running: LongRunning[] = [];
afterEach(() => {
  for (const r of running.splice(0)) if (r.child.exitCode === null) r.child.kill('SIGKILL');
});

describe('bench replay', () => {
  it('serves a recorded harness folder, logs one line per request, and exits cleanly on SIGTERM', async () => {
    const replay = await startBench(['replay', '--cassette', 'cassettes/kiro-native', '--port', '0']);
    running.push(replay);
    const health = await fetch(`${replay.url}/health`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const miss = await fetch(`${replay.url}/nowhere`);
    expect(miss.status).toBe(400); // not 5xx: common clients do not retry it
    expect(((await miss.json()) as { error: { code: string } }).error.code).toBe('tapedeck_unmatched_request');
    await replay.waitForStderr('no recorded interaction matches GET /nowhere');
    replay.child.kill('SIGTERM');
    expect(await replay.exit()).toBe(1);
    expect(replay.stderr()).toContain('bench replay: GET /health → basic_turn.yaml #1 200\n');
  });

  it('answers 404 for unknown requests in lenient mode and exits 0', async () => {
    const replay = await startBench(['replay', '--cassette', 'cassettes/kiro-native/basic_turn.yaml', '--lenient', '--quiet']);
    running.push(replay);
    const miss = await fetch(`${replay.url}/nowhere`);
    expect(miss.status).toBe(404);
    expect(((await miss.json()) as { error: { code: string } }).error.code).toBe('tapedeck_no_recording');
    replay.child.kill('SIGTERM');
    expect(await replay.exit()).toBe(0);
  });

  it('refuses a bad timing mode and a missing cassette in one line', async () => {
    const t = await runBench(['replay', '--cassette', 'cassettes/kiro-native', '--timing', 'fast']);
    expect(t.stderr).toBe('bench: --timing "fast" is not a timing mode; use instant, realtime or scaled:<factor> (e.g. scaled:0.1)\n');
    expect(t.code).toBe(2);
    const m = await runBench(['replay', '--cassette', 'nope/']);
    expect(m.stderr).toBe('bench: --cassette nope/: no such file or folder\n');
    expect(m.code).toBe(2);
  });
});

describe('bench replay serves everything it is given, and only what it can read', () => {
  it('serves every cassette named, as positionals and repeated --cassette', async () => {
    const replay = await startBench([
      'replay',
      'cassettes/opencode-serve/text_turn.yaml',
      '--cassette',
      'cassettes/kiro-native/basic_turn.yaml',
      '--cassette',
      'cassettes/hermes',
      '--port',
      '0',
    ]);
    running.push(replay);
    // The first plain exchange each cassette recorded, asked again: each answers as recorded.
    for (const file of [
      'cassettes/opencode-serve/text_turn.yaml',
      'cassettes/kiro-native/basic_turn.yaml',
      'cassettes/hermes/idempotent_retry.yaml',
    ]) {
      const first = (await loadCassette(file)).interactions.find((i) => i.response && !i.response.stream && !i.response.websocket);
      const init = { method: first?.request.method ?? 'GET', ...(first?.request.body ? { body: decodeBody(first.request.body) } : {}) };
      const headers = first?.request.headers.authorization ? { authorization: 'Bearer replay-key' } : {};
      expect((await fetch(`${replay.url}${first?.request.path}`, { ...init, headers })).status, file).toBe(first?.response?.status);
    }
    replay.child.kill('SIGTERM');
    await replay.exit();
    expect(replay.stderr()).not.toContain('no recorded interaction matches');
    const none = await runBench(['replay']);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('bench: name the cassettes to serve: bench replay FILE|FOLDER..., or --cassette FILE|FOLDER (repeatable)\n');
  });

  it('refuses a 100 MB request body with 413 unread while other requests go on', async () => {
    const replay = await startBench(['replay', '--cassette', 'cassettes/kiro-native/basic_turn.yaml', '--port', '0', '--quiet']);
    running.push(replay);
    const { request } = await import('node:http');
    const big = new Promise<number>((resolve, reject) => {
      const req = request(
        `${replay.url}/v1/sessions`,
        { method: 'POST', headers: { 'content-type': 'application/octet-stream' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      const chunk = Buffer.alloc(1024 * 1024, 1);
      let sent = 0;
      const pump = () => {
        while (sent < 100 && req.write(chunk)) sent++;
        if (sent < 100) req.once('drain', pump);
        else req.end();
      };
      pump();
    });
    const latencies: number[] = [];
    for (let k = 0; k < 10; k++) {
      const t = performance.now();
      expect((await fetch(`${replay.url}/health`)).status).toBe(200);
      latencies.push(performance.now() - t);
    }
    expect(await big.catch(() => 413)).toBe(413);
    // It used to stall the server for 13 s; a loaded machine still answers well within a second.
    expect(Math.max(...latencies)).toBeLessThan(1000);
    replay.child.kill('SIGTERM');
    await replay.exit();
  });
});

describe('bench replay matches like the recorder redacted', () => {
  it('reads the redact and match sections of tapedeck.config.json (found from a subfolder, or --config): the real value, or another value of an ignored field, matches', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-replay-config-'));
    await writeFile(
      join(dir, 'tapedeck.config.json'),
      JSON.stringify({ redact: { jsonFields: ['session_code'] }, match: { ignoreBodyPaths: ['n'] } }),
    );
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'empty.json'), '{}');
    const origin = await startServer(async (req, res) => {
      await readBody(req);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    const post = (url: string, n = 1) =>
      fetch(`${url}/join`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"session_code":"ROOM-7788-XYZW","n":${n}}`,
      });
    try {
      const proxy = await startBench(['proxy', '--target', origin.url, '--port', '0', '--cassette', 'c.yaml'], { cwd: join(dir, 'sub') });
      running.push(proxy);
      expect((await post(proxy.url)).status).toBe(200);
      proxy.child.kill('SIGTERM');
      expect(await proxy.exit()).toBe(0);
      expect(await readFile(join(dir, 'sub', 'c.yaml'), 'utf8')).toContain('<redacted:session_code>');

      const replay = await startBench(['replay', 'c.yaml', '--quiet'], { cwd: join(dir, 'sub') });
      running.push(replay);
      expect((await post(replay.url)).status).toBe(200);
      // The match section: a request that differs only in an ignored body field matches too.
      expect((await post(replay.url, 2)).status).toBe(200);
      replay.child.kill('SIGTERM');
      expect(await replay.exit()).toBe(0);

      // Without the rule the live value stays and finds no recording: the config is what made it match.
      const bare = await startBench(['replay', 'c.yaml', '--quiet', '--config', join(dir, 'empty.json')], { cwd: join(dir, 'sub') });
      running.push(bare);
      const miss = await post(bare.url);
      expect(miss.status).toBe(400);
      // The hint names an option that exists, and where it goes.
      const { error } = (await miss.json()) as { error: { message: string } };
      expect(error.message).toContain('"ignoreBodyPaths": ["session_code"] (the "match" section of ../empty.json)');
      bare.child.kill('SIGTERM');
      expect(await bare.exit()).toBe(1);
    } finally {
      await origin.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('bench replay-check', () => {
  it('reproduces every recorded verdict offline and says so', async () => {
    const r = await runBench(['replay-check', 'cassettes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ok   cursor-native basic_turn: SUPPORTED\n');
    expect(r.stdout.trim().split('\n').at(-1)).toBe('164 passed, 0 failed');
  });
});
