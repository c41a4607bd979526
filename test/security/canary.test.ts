import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliDecompressSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { parseCassette } from '../../src/cassette/index.js';
import { type LongRunning, startBench } from '../helpers/cli.js';
import { readBody, startServer } from '../helpers/servers.js';

const run = promisify(execFile);
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const track = (b: LongRunning) => {
  cleanups.push(() => {
    if (b.child.exitCode === null) b.child.kill('SIGKILL');
  });
  return b;
};

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const rnd = (n: number, alphabet = ALNUM) => Array.from(randomBytes(n), (b) => alphabet[b % alphabet.length]).join('');
const b64url = (s: string) => Buffer.from(s).toString('base64url');
const jwt = () => `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(`{"sub":"${rnd(12)}","iat":1700000000}`)}.${rnd(43)}`;
const pem = () => `-----BEGIN RSA PRIVATE KEY-----\n${rnd(64)}\n${rnd(64)}\n${rnd(40)}==\n-----END RSA PRIVATE KEY-----`;

/** Every place a secret is planted, each with its own value; names say where it sits. */
function plantSecrets() {
  const s = {
    authBearer: rnd(40),
    authToken: rnd(32),
    proxyBasicPassword: `pw${rnd(20)}`,
    cookie: rnd(28),
    xApiKey: rnd(36),
    xAuthToken: rnd(30),
    xSignature: rnd(44),
    xSessionToken: rnd(34),
    xSession: rnd(34),
    xAmzSecurityToken: rnd(60),
    queryApiKey: rnd(26),
    querySig: `${rnd(30)}%2B${rnd(10)}`,
    queryAmzSignature: rnd(64, '0123456789abcdef'),
    queryAmzCredential: `AKIA${rnd(16, BASE32)}`,
    queryAccessToken: rnd(40),
    password: `Pw${rnd(18)}`,
    accessToken: rnd(40),
    refreshToken: rnd(40),
    clientSecret: rnd(32),
    privateKey: pem(),
    Password: `Cap${rnd(18)}`,
    sessionToken: rnd(40),
    idToken: jwt(),
    apiKeyArray0: rnd(30),
    apiKeyArray1: rnd(30),
    tokenObject: rnd(30),
    skAsJsonKey: `sk-${rnd(32)}`,
    formPassword: `f${rnd(20)}`,
    formClientSecret: `c/${rnd(20)}+=`,
    multipartApiKey: rnd(30),
    multipartPassword: rnd(24),
    lowercaseBearer: rnd(36),
    setCookie: rnd(30),
    xRefreshToken: rnd(40),
    locationFragment: rnd(40),
    respAccessToken: rnd(40),
    respNestedRefresh: rnd(40),
    githubPat: `github_pat_${rnd(82, `${ALNUM}_`)}`,
    asiaKey: `ASIA${rnd(16, BASE32)}`,
    slackApp: `xapp-1-A${rnd(10, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}-${rnd(13, '0123456789')}-${rnd(64, '0123456789abcdef')}`,
    stripeLive: `sk_live_${rnd(24)}`,
    gitlabPat: `glpat-${rnd(20)}`,
    pemInText: pem(),
    postgresPassword: `pg${rnd(20)}`,
    echoedUrlEncoded: `p@ss/w+rd ${rnd(16)}`,
    gzipAccessToken: rnd(40),
    gzipSseApiKey: rnd(40),
    sseIdJwt: jwt(),
    sseEventSk: `sk-${rnd(30)}`,
    sseDataToken: rnd(40),
    sseTextPassword: rnd(30),
    sseComment: `ghp_${rnd(36)}`,
    sseSplit: `sk-${rnd(40)}`,
    sseTextBearer: rnd(40),
    wsProtocol: rnd(40),
    wsClientToken: rnd(40),
    wsServerAccessToken: rnd(40),
    wsTextApiKey: rnd(30),
    wsSlack: `xoxb-${rnd(12, '0123456789')}-${rnd(12, '0123456789')}-${rnd(24)}`,
    wsCloseReason: `sk-${rnd(30)}`,
    wsQueryToken: rnd(40),
    wsAuthorization: rnd(40),
    numericSecret: Number(`9${rnd(11, '0123456789')}`),
    base64Echo: rnd(30),
  };
  return s;
}
type Secrets = ReturnType<typeof plantSecrets>;

/** An origin that hands out, echoes and streams every secret, gzip on some answers. */
async function canaryOrigin(s: Secrets) {
  const server = await startServer(async (req, res) => {
    const body = (await readBody(req)).toString();
    const url = req.url ?? '/';
    const json = (value: unknown, headers: Record<string, string | string[]> = {}, gzip = false) => {
      const bytes = Buffer.from(JSON.stringify(value));
      res.writeHead(200, { 'content-type': 'application/json', ...(gzip ? { 'content-encoding': 'gzip' } : {}), ...headers });
      res.end(gzip ? gzipSync(bytes) : bytes);
    };
    if (url.startsWith('/login')) {
      return json(
        {
          ok: true,
          access_token: s.respAccessToken,
          nested: { deeper: { refresh_token: s.respNestedRefresh } },
          // The caller's own credentials, echoed as servers do: base64, URL-encoded.
          seen: Buffer.from(`Token ${s.authToken}`).toString('base64'),
          blob: Buffer.from(s.base64Echo).toString('base64'),
          next: `/welcome?who=${encodeURIComponent(s.echoedUrlEncoded)}`,
          bodyLength: body.length,
        },
        { 'set-cookie': [`session=${s.setCookie}; Path=/; HttpOnly`], 'x-refresh-token': s.xRefreshToken },
      );
    }
    if (url.startsWith('/callback')) {
      res.writeHead(302, { location: `https://app.example/cb#access_token=${s.locationFragment}&state=xyz` });
      res.end();
      return;
    }
    if (url.startsWith('/shapes'))
      return json({
        notes: [
          `deploy with ${s.githubPat}`,
          `aws ${s.asiaKey} in us-east-1`,
          `slack ${s.slackApp}`,
          `charge via ${s.stripeLive}`,
          `gitlab ${s.gitlabPat}`,
          s.pemInText,
          `dsn postgres://app:${s.postgresPassword}@db.internal:5432/main`,
        ],
      });
    if (url.startsWith('/gz')) return json({ access_token: s.gzipAccessToken, kept: 'visible-value' }, {}, true);
    if (url.startsWith('/stream')) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      const half = 8;
      const text = [
        `id: ${s.sseIdJwt}\nevent: tick\ndata: {"n":1}\n\n`,
        `event: key.${s.sseEventSk}\ndata: {"n":2}\n\n`,
        `data: {"token":"${s.sseDataToken}","n":3}\n\n`,
        `data: password=${s.sseTextPassword}\n\n`,
        `: keepalive ${s.sseComment}\n\n`,
        `event: delta\ndata: {"delta":"here is the key: ${s.sseSplit.slice(0, half)}"}\n\n`,
        `event: delta\ndata: {"delta":"${s.sseSplit.slice(half)} and more"}\n\n`,
        `data: Authorization: Bearer ${s.sseTextBearer}\n\n`,
        `data: {"apiKey":"${s.gzipSseApiKey}"}\n\n`,
        'event: done\ndata: {"n":9}\n\n',
      ].join('');
      res.end(gzipSync(Buffer.from(text)));
      return;
    }
    return json({ echo: body.length, path: url.split('?')[0] });
  });
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (protocols) => [...protocols][0] ?? false });
  server.server.on('upgrade', (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('message', (data, isBinary) => {
        const text = data.toString();
        if (!isBinary && text.startsWith('{')) {
          ws.send(JSON.stringify({ type: 'welcome', access_token: s.wsServerAccessToken }));
          ws.send(`workspace token xoxb ${s.wsSlack}`);
        } else ws.close(4000, `bye ${s.wsCloseReason}`);
      });
    });
  });
  cleanups.push(() => server.close());
  return server;
}

/** The client side: fetch for JSON, SSE and redirects, curl for forms and multipart, ws for WebSocket. */
async function drive(base: string, s: Secrets) {
  const answers: { path: string; status: number; body: string }[] = [];
  const req = async (path: string, init: RequestInit = {}) => {
    const r = await fetch(`${base}${path}`, { redirect: 'manual', ...init });
    answers.push({ path, status: r.status, body: await r.text() });
  };
  const login =
    `/login?api_key=${s.queryApiKey}&sig=${s.querySig}&X-Amz-Signature=${s.queryAmzSignature}` +
    `&X-Amz-Credential=${s.queryAmzCredential}%2F20260101%2Fus-east-1&access_token=${s.queryAccessToken}&user=ana`;
  await req(login, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${s.authBearer}`,
      'proxy-authorization': `Basic ${Buffer.from(`ana:${s.proxyBasicPassword}`).toString('base64')}`,
      cookie: `sid=${s.cookie}; theme=dark`,
      'x-api-key': s.xApiKey,
      'x-auth-token': s.xAuthToken,
      'x-signature': s.xSignature,
      'x-session-token': s.xSessionToken,
      'x-session': s.xSession,
      'x-amz-security-token': s.xAmzSecurityToken,
      'x-client-secret': s.base64Echo,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      user: 'ana',
      password: s.password,
      accessToken: s.accessToken,
      refreshToken: s.refreshToken,
      clientSecret: s.clientSecret,
      private_key: s.privateKey,
      Password: s.Password,
      session_token: s.sessionToken,
      id_token: s.idToken,
      api_key: [s.apiKeyArray0, s.apiKeyArray1],
      token: { value: s.tokenObject, kind: 'opaque' },
      keys: { [s.skAsJsonKey]: 'primary' },
      secret: s.numericSecret,
      passphrase: s.echoedUrlEncoded,
      prompt: 'say hello',
    }),
  });
  await req('/rooms/1', { headers: { authorization: `Token ${s.authToken}` } });
  await req('/form', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ user: 'ana', password: s.formPassword, client_secret: s.formClientSecret }).toString(),
  });
  await req('/notes', {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: `call it with bearer ${s.lowercaseBearer} please`,
  });
  await req('/callback');
  await req('/shapes');
  await req('/gz');
  await req('/stream');
  const curl = await run('curl', [
    '-sS',
    '-F',
    'user=ana',
    '-F',
    `api_key=${s.multipartApiKey}`,
    '-F',
    `password=${s.multipartPassword}`,
    `${base}/upload`,
  ]);
  answers.push({ path: '/upload', status: 200, body: curl.stdout });

  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/ws?token=${s.wsQueryToken}&room=7`, ['bearer', s.wsProtocol], {
    headers: { authorization: `Bearer ${s.wsAuthorization}` },
  });
  const frames: string[] = [];
  ws.on('message', (d) => {
    frames.push(d.toString());
    if (frames.length === 2) ws.send(`api_key=${s.wsTextApiKey}`);
  });
  await once(ws, 'open');
  ws.send(JSON.stringify({ type: 'auth', token: s.wsClientToken }));
  const [code, reason] = (await once(ws, 'close')) as [number, Buffer];
  return { answers, frames, close: { code, reason: reason.toString() } };
}

/** Every way a secret could still be written: as is, URL-encoded, JSON-escaped, base64, and any long stretch of it. */
function spellings(value: string): string[] {
  const out = new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]);
  for (const enc of ['base64', 'base64url'] as const) out.add(Buffer.from(value).toString(enc).replace(/=+$/, ''));
  const core = value.replace(/^(sk-|sk_live_|ghp_|github_pat_|glpat-|xapp-|xoxb-|ASIA|AKIA|-----BEGIN RSA PRIVATE KEY-----\n)/, '');
  if (core.length >= 24) out.add(core.slice(4, 20));
  return [...out];
}

/** The cassette as text, plus every base64 body decoded (and decompressed, if it was compressed). */
function everythingWritten(text: string): string {
  const parts = [text];
  const cassette = parseCassette(text);
  const bodies = cassette.interactions.flatMap((i) => [i.request.body, i.response?.body, ...(i.response?.websocket?.frames ?? [])]);
  for (const b of bodies) {
    if (!b || !('base64' in b) || typeof b.base64 !== 'string') continue;
    const raw = Buffer.from(b.base64, 'base64');
    parts.push(raw.toString('latin1'));
    for (const unzip of [gunzipSync, inflateSync, brotliDecompressSync]) {
      try {
        parts.push(unzip(raw).toString('utf8'));
      } catch {
        // Not this coding.
      }
    }
  }
  return parts.join('\n');
}

describe('canary secrets', () => {
  it('leaves none of 63 secrets on disk, in any spelling, over HTTP, SSE and WebSocket, and the recording replays to clients carrying them', async () => {
    const s = plantSecrets();
    const places = Object.keys(s).length;
    expect(places).toBeGreaterThanOrEqual(60);
    const origin = await canaryOrigin(s);
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-canary-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'canary.yaml');

    const proxy = track(await startBench(['proxy', '--target', origin.url, '--port', '0', '--cassette', file]));
    const live = await drive(proxy.url, s);
    expect(live.frames).toHaveLength(2);
    expect(live.close.reason).toContain(s.wsCloseReason);
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    expect(existsSync(`${file}.journal`)).toBe(false);

    const written = everythingWritten(await readFile(file, 'utf8'));
    const leaks = Object.entries(s).flatMap(([place, value]) =>
      spellings(String(value))
        .filter((spelling) => written.includes(spelling))
        .map((spelling) => `${place}: ${spelling.slice(0, 24)}`),
    );
    expect(leaks).toEqual([]);
    // Values that are not secret are kept as they were.
    for (const kept of ['visible-value', 'user=ana', 'room=7', 'say hello', 'primary']) expect(written).toContain(kept);

    // A client carrying the real secrets gets the recorded answers: live requests are redacted the same way before matching.
    const replay = track(await startBench(['replay', '--cassette', file, '--port', '0']));
    const replayed = await drive(replay.url, s);
    expect(replay.stderr(), replay.stderr()).not.toMatch(/unmatched|no recorded/i);
    expect(replayed.answers.map((a) => [a.path, a.status])).toEqual(live.answers.map((a) => [a.path, a.status]));
    expect(replayed.answers.find((a) => a.path === '/shapes')?.body).toContain('<redacted:github-fine-grained-pat>');
    expect(replayed.frames).toHaveLength(2);
    expect(replayed.close.code).toBe(4000);
    replay.child.kill('SIGTERM');
    await replay.exit();
  });
});
