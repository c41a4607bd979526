import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
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
    expect(text).toContain('<redacted:x-session-jwt>');
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
      paths: [],
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

describe('redaction under secret names', () => {
  it('replaces every leaf under a secret name but the name of a scheme, and seeks elsewhere only those that look like credentials', () => {
    const c = parseCassette(
      serializeCassette({
        version: 1,
        meta: { recorder: 't', target: 'http://127.0.0.1:1', recordedAt: 'now' },
        interactions: [
          {
            seq: 1,
            request: { method: 'GET', path: '/x', headers: {} },
            response: {
              status: 200,
              headers: {},
              body: { json: { auth: { type: 'bearer', key: 'Xq7mK2pL9rT4yB6c' }, text: 'a bearer token, then Xq7mK2pL9rT4yB6c' } },
            },
            timing: { start: 0 },
          },
        ],
      }),
    );
    expect(c.interactions[0]?.response?.body).toEqual({
      // A client reads `auth.type` (hermes-agent-api-client refuses capabilities without it); `bearer` gives nothing away.
      json: { auth: { type: 'bearer', key: '<redacted:auth>' }, text: 'a bearer token, then <redacted:auth>' },
    });
  });
});

describe('bench scan', () => {
  it("finds this machine's host name and folders in a cassette, and a recording through the proxy holds none", async () => {
    const machine = { host: hostname(), workspace: process.cwd() };
    const answer = JSON.stringify({ hosts: [{ host_id: 'h1', name: machine.host }], workspace: `${machine.workspace}/run` });
    const server = await startServer(async (req, res) => {
      await readBody(req);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answer);
    });
    cleanups.push(() => server.close());
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-scan-machine-'));
    const proxy = await startRecordingProxy({ target: server.url });
    expect(await (await fetch(`${proxy.url}/v1/hosts`)).text()).toBe(answer);
    await writeFile(join(dir, 'recorded.yaml'), serializeCassette(await proxy.close()));
    const clean = await runBench(['scan', join(dir, 'recorded.yaml')]);
    expect([clean.code, clean.stdout]).toEqual([0, 'no secrets found in 1 files\n']);

    // The same answer written as is, not as the recorder writes it.
    const recorded = parseCassette(await readFile(join(dir, 'recorded.yaml'), 'utf8'));
    const raw = recorded.interactions.map((i) => ({ ...i, response: i.response && { ...i.response, body: { json: JSON.parse(answer) } } }));
    await writeFile(join(dir, 'by-hand.yaml'), serializeCassette({ ...recorded, interactions: raw }));
    const r = await runBench(['scan', join(dir, 'by-hand.yaml')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`this machine's host name (${machine.host.slice(0, 6)}…)`);
    expect(r.stdout).toContain('a folder of this machine');
    expect(r.stdout).toMatch(/2 possible secrets or machine names found in 1 files\n$/);
  });

  it('is clean on the committed cassettes', async () => {
    const r = await runBench(['scan', 'cassettes']);
    expect(r.stdout).toMatch(/^no secrets found in \d+ files\n$/);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('finds every secret planted in 31 files, however it is spelled, wherever it hides, and warns on a broken cassette', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-scan-planted-'));
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, '.hidden', 'deeper'), { recursive: true });
    const key = (n: number) => `sk-proj${String(n).padStart(2, '0')}Zq8xW3vN7mK2pL9rT4yB6cD1eF5gH0jA`;
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
    const yamlEscaped = (s: string) => s.replace(/[a-z]/g, (c, i: number) => (i % 3 === 0 ? `\\x${c.charCodeAt(0).toString(16)}` : c));
    // Written as a careless tool would, not through tapedeck's save (which would redact them).
    const cassette = (body: string) =>
      `version: 1\nmeta:\n  recorder: "t"\n  target: "http://x"\n  recordedAt: "now"\ninteractions:\n  - seq: 1\n    request:\n      method: "GET"\n      path: "/"\n      headers: {}\n    response:\n      status: 200\n      headers: {}\n      body: ${body}\n    timing:\n      start: 0\n`;
    const planted: [string, string][] = [
      ['plain.yaml', `token_note: "${key(1)}"\n`],
      ['escaped.yaml', `note: "${yamlEscaped(key(2))}"\n`],
      ['single-quoted.yaml', `note: 'it''s ${key(3)}'\n`],
      ['folded.yaml', `note: >\n  ${key(4)}\n`],
      ['unicode-escape.yaml', `note: "${key(5).replace('sk-', 'sk\\u002d')}"\n`],
      ['.hidden/deeper/in-hidden.yaml', `note: "${key(6)}"\n`],
      ['session.yaml.bak', `note: "${key(7)}"\n`],
      ['notes.txt', `remember ${key(8)}\n`],
      ['data.json', JSON.stringify({ note: key(9) })],
      ['json-escaped.json', JSON.stringify({ note: key(10) }).replace('sk-', 'sk\\u002d')],
      [
        'recording.yaml.journal',
        `${JSON.stringify({ k: 'meta', journal: 1 })}\n${JSON.stringify({ k: 'events', items: [{ data: key(11) }] })}\n`,
      ],
      ['base64-body.yaml', cassette(`{base64: "${Buffer.from(`auth ${key(12)}\u0000`).toString('base64')}"}`)],
      ['json-body.yaml', cassette(`{json: {"note": "${key(13)}"}}`)],
      ['text-body.yaml', cassette(`{text: "Bearer ${jwt}"}`)],
      ['broken-cassette.yaml', `version: 1\nmeta: {recorder: t}\ninteractions:\n  - seq: nope\n    note: "${key(14)}"\n`],
      ['har.har', JSON.stringify({ log: { entries: [{ response: { content: { text: key(15) } } }] } })],
      ['.hidden/env.yaml', `OPENAI_API_KEY: ${key(16)}\n`],
      ['no-extension', `${key(17)}\n`],
      ['flow.yaml', `list: [a, "${key(18)}", b]\n`],
      ['key-as-key.yaml', `"${key(19)}": 1\n`],
      ['multi-line.yaml', `note: |\n  line one\n  ${key(20)}\n`],
      ['github.yaml', `pat: "ghp_${'a1B2c3D4e5F6g7H8i9J0'.repeat(2).slice(0, 36)}"\n`],
      ['aws.yaml', 'id: "AKIAQY3JZ7VWX2LM5NPR"\n'],
      ['jwt.yaml', `t: "${jwt}"\n`],
      // Shapes of the adopted gitleaks set, in places only a cassette has.
      ['fine-grained.yaml', cassette(`{text: "github_pat_${'A1b2C3d4E5'.repeat(8)}Zz"}`)],
      ['temporary-aws.yaml', cassette(`{json: {"k": "ASIAQY3JZ7VWX2LM5NPR"}}`)],
      ['stripe.yaml', `sse:\n  - event: "charge sk_live_4eC39HqLyjWDarjtT1zdp7dc"\n`],
      ['pem.yaml', `key: "-----BEGIN PRIVATE KEY-----\\n${'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC'.repeat(3)}\\n-----END PRIVATE KEY-----"\n`],
      ['dsn.yaml', `reason: "postgres://app:hunter2pw@db:5432/main"\n`],
      // Plain words under a secret name, deeper than the name itself: a save replaces them, so scan reports them.
      ['nested-password.yaml', cassette(`{json: {"password": ["hunter2"]}}`)],
      ['nested-auth.yaml', cassette(`{json: {"auth": {"key": "swordfish"}}}`)],
    ];
    for (const [name, text] of planted) await writeFile(join(dir, name), text);
    const r = await runBench(['scan', dir]);
    expect(r.code).toBe(1);
    const hits = new Set(r.stdout.split('\n').map((l) => l.split(':')[0]));
    for (const [name] of planted) expect(hits, name).toContain(join(dir, name));
    expect(r.stdout).toMatch(new RegExp(`${planted.length} files\\n$`));
    expect(r.stderr).toMatch(/bench scan: .*broken-cassette\.yaml.*scanned as text all the same/);
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
