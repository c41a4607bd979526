import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { type LongRunning, runBench, startBench } from '../helpers/cli.js';
import { startServer } from '../helpers/servers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const pick = (n: number, alphabet: string) => Array.from(randomBytes(n), (b) => alphabet[b % alphabet.length]).join('');
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** The six places a secret still reached disk, each with a value of its own, fresh every run. */
function sixSecrets() {
  return {
    sseDataSession: pick(32, ALNUM),
    sseCommentSession: pick(32, ALNUM),
    pathKeyId: `key_${pick(24, ALNUM)}`,
    digestNonce: pick(32, '0123456789abcdef'),
    digestOpaque: pick(32, '0123456789abcdef'),
    // Any letters and digits after ASIA, not only the base32 ones gitleaks' rule takes.
    asiaKeyId: `ASIA${pick(16, UPPER_DIGITS)}`,
    slackAppToken: `xapp-1-A${pick(10, UPPER_DIGITS)}-${pick(13, '0123456789')}-${pick(64, '0123456789abcdef')}`,
  };
}
type Six = ReturnType<typeof sixSecrets>;

/** A server that hands each secret out where the recorder used to miss it: SSE text and comments, a path, a challenge, free text. */
async function leakyServer(s: Six) {
  const server = await startServer((req, res) => {
    if (req.url === '/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: session=${s.sseDataSession}\n\n: session=${s.sseCommentSession}\n\ndata: done\n\n`);
    } else if (req.url?.startsWith('/v1/keys/')) {
      res.writeHead(401, {
        'www-authenticate': `Digest realm="api", qop="auth", algorithm=SHA-256, nonce="${s.digestNonce}", opaque="${s.digestOpaque}"`,
        'content-type': 'text/plain',
      });
      res.end(`no access; temporary credentials ${s.asiaKeyId} expired, ask the bot (${s.slackAppToken})`);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  cleanups.push(() => server.close());
  return server;
}

async function drive(base: string, s: Six): Promise<string[]> {
  const events = await (await fetch(`${base}/events`)).text();
  const key = await fetch(`${base}/v1/keys/${s.pathKeyId}`);
  return [events, String(key.status), key.headers.get('www-authenticate') ?? '', await key.text()];
}

const track = (b: LongRunning) => {
  cleanups.push(() => {
    if (b.child.exitCode === null) b.child.kill('SIGKILL');
  });
  return b;
};

describe('the last leaks', () => {
  it('bench scan finds each of the six in an unredacted cassette, and a recording leaves none of them on disk', async () => {
    const s = sixSecrets();
    const server = await leakyServer(s);
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-leaks-'));

    // The traffic as captured, before any save redacts it: what a hand-made or foreign cassette may hold.
    const raw = await startRecordingProxy({ target: server.url });
    await drive(raw.url, s);
    const unredacted = join(dir, 'unredacted.yaml');
    await writeFile(unredacted, stringify(await raw.close()));
    const scan = await runBench(['scan', unredacted, '--format', 'json']);
    expect(scan.code).toBe(1);
    // A finding shows the start of its value only.
    const previews = (JSON.parse(scan.stdout) as { findings: { preview: string }[] }).findings.map((f) => f.preview);
    for (const [place, value] of Object.entries(s)) expect(previews, `${place} found by bench scan`).toContain(`${value.slice(0, 6)}…`);

    const file = join(dir, 'recorded.yaml');
    const proxy = track(await startBench(['proxy', '--target', server.url, '--port', '0', '--cassette', file]));
    const live = await drive(proxy.url, s);
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
    const written = await readFile(file, 'utf8');
    for (const [place, value] of Object.entries(s)) expect(written.includes(value), `${place} on disk`).toBe(false);
    expect(written).toContain('/v1/keys/<redacted:key>');
    expect(written).toContain('nonce=\\"<redacted:digest-nonce>\\"');
    expect((await runBench(['scan', file])).code).toBe(0);

    // A client carrying the real values is answered from the redacted recording.
    const replay = track(await startBench(['replay', '--cassette', file, '--port', '0']));
    const replayed = await drive(replay.url, s);
    expect(replayed[1]).toBe(live[1]);
    expect(replay.stderr()).not.toMatch(/unmatched/);
  }, 60_000);
});
