import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { ReplayEngine } from '../../src/replayer/index.js';
import { runBench } from '../helpers/cli.js';
import { readBody, startServer } from '../helpers/servers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('redaction', () => {
  it('leaves no trace of a secret planted in twelve places, and the recording still replays', async () => {
    const secret = `canary${Math.random().toString(36).slice(2, 12)}Q7`;
    const server = await startServer(async (req, res) => {
      const body = (await readBody(req)).toString();
      if (req.url?.startsWith('/stream')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`event: session.token\ndata: {"token":"${secret}","note":"ok"}\n\n`);
        return;
      }
      res.writeHead(200, {
        'content-type': 'application/json',
        'set-cookie': `sid=${secret}; Path=/`,
        'x-session-jwt': 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbmEifQ.c2lnbmF0dXJlc2ln',
      });
      res.end(JSON.stringify({ access_token: secret, echo: body, nested: { refresh_token: secret, client_secret: secret } }));
    });
    cleanups.push(() => server.close());
    const proxy = await startRecordingProxy({ target: server.url });
    const requests: [string, RequestInit][] = [
      [
        `/login?api_key=${secret}&user=ana`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${secret}`,
            cookie: `sid=${secret}`,
            'x-api-key': secret,
            'x-auth-token': secret,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ user: 'ana', password: secret, apiKey: secret, prompt: 'use key sk-abcdefghijklmnopqrstuvwx please' }),
        },
      ],
      ['/rooms/1', { headers: { authorization: `HermesRoom ${secret}`, 'proxy-authorization': `Basic ${secret}` } }],
      ['/stream', {}],
    ];
    const live: string[] = [];
    for (const [path, init] of requests) live.push(await (await fetch(`${proxy.url}${path}`, init)).text());
    const text = serializeCassette(await proxy.close());
    expect(text).not.toContain(secret);
    expect(text).not.toContain('sk-abcdefghijklmnopqrstuvwx');
    expect(text).toContain('<redacted:password>');
    expect(text).toContain('api_key=%3Credacted%3Aapi_key%3E&user=ana');
    expect(text).toContain('<redacted:jwt>');
    expect(text).not.toContain('eyJhbGciOiJIUzI1NiJ9');

    // Matching works on placeholders: the same live requests, secrets and all, find their answers.
    const engine = new ReplayEngine([{ name: 'canary.yaml', cassette: parseCassette(text) }]);
    for (const [path, init] of requests) {
      const headers = Object.fromEntries(
        Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
      );
      const answer = engine.handle({
        method: init.method ?? 'GET',
        path,
        headers,
        body: Buffer.from((init.body as string | undefined) ?? ''),
      });
      expect(answer.kind === 'unmatched' ? answer.error.message : 'matched', path).toBe('matched');
    }
  });

  it('applies configured rules and exemptions', async () => {
    const server = await startServer(async (req, res) => {
      await readBody(req);
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-key': 'keep-me-visible' });
      res.end(JSON.stringify({ session_code: 'ABCD-1234-EFGH', order: 'ORD-99887766' }));
    });
    cleanups.push(() => server.close());
    const proxy = await startRecordingProxy({ target: server.url });
    await (await fetch(`${proxy.url}/x`)).text();
    const text = serializeCassette(await proxy.close(), {
      headers: [],
      query: [],
      jsonFields: ['session_code'],
      patterns: ['ORD-\\d{8}'],
      exempt: ['x-request-key'],
    });
    expect(text).toContain('keep-me-visible');
    expect(text).not.toContain('ABCD-1234-EFGH');
    expect(text).toContain('<redacted:session_code>');
    expect(text).toContain('<redacted:pattern-1>');
  });
});

describe('bench scan', () => {
  it('is clean on the committed cassettes', async () => {
    const r = await runBench(['scan', 'cassettes']);
    expect(r.stdout).toBe('no secrets found\n');
    expect(r.code).toBe(0);
  });

  it('finds a secret planted by hand, naming file and line, and exits 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-scan-'));
    const original = await readFile('cassettes/kiro-native/basic_turn.yaml', 'utf8');
    const lines = original.split('\n');
    const at = lines.findIndex((l) => l.includes('"origin": "omnigent://internal"'));
    lines[at] = (lines[at] as string).replace('"origin":', '"authorization": "Bearer s3cr3tTOKENvalue1234567", "origin":');
    const file = join(dir, 'edited.yaml');
    await writeFile(file, lines.join('\n'));
    const r = await runBench(['scan', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${file}:${at + 1}: bearer (s3cr3t…)`);
    expect(r.stdout).toContain(`${file}:${at + 1}: authorization (Bearer…)`);
  });
});

describe('paths inside files', () => {
  it('refuses a manifest whose cassette path would leave its folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-manifest-'));
    const manifest = (await readFile('cassettes/kiro-native/manifest.yaml', 'utf8')).replace(
      'cassette: "basic_turn.yaml"',
      'cassette: "../../../etc/passwd.yaml"',
    );
    await writeFile(join(dir, 'manifest.yaml'), manifest);
    const r = await runBench(['replay-check', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^bench: .*manifest\.yaml probes\.0\.cassette: must be a cassette file name beside the manifest, like basic_turn\.yaml\n$/,
    );
  });
});
