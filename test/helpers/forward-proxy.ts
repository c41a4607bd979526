import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { loadCassette } from '../../src/cassette/index.js';
import { type LongRunning, startBench } from './cli.js';
import { readBody, startServer, type TestServer } from './servers.js';

const run = promisify(execFile);
const REPO = new URL('../..', import.meta.url).pathname;

/** A real client that sends a GET through the proxy named in `HTTP_PROXY`, and tells what it got. */
export interface ProxyClient {
  name: string;
  get(url: string, proxy: string): Promise<{ status: number; body: string }>;
}

/** The environment of a client behind a proxy: nothing exempted, whatever this machine's own settings. */
const behind = (proxy: string) => ({ ...process.env, HTTP_PROXY: proxy, http_proxy: proxy, NO_PROXY: '', no_proxy: '' });

/** Splits what a client printed as `<status>\n<body>`. */
const statusAndBody = (out: string) => ({ status: Number(out.slice(0, out.indexOf('\n'))), body: out.slice(out.indexOf('\n') + 1) });

export const curl: ProxyClient = {
  name: 'curl',
  async get(url, proxy) {
    const { stdout } = await run('curl', ['-s', '-w', '\n%{http_code}', url], { env: behind(proxy) });
    const cut = stdout.lastIndexOf('\n');
    return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
  },
};

const NODE_FETCH = `
import { EnvHttpProxyAgent } from 'undici';
const res = await fetch(process.argv[1], { dispatcher: new EnvHttpProxyAgent() });
process.stdout.write(res.status + '\\n' + (await res.text()));
`;

export const nodeFetch: ProxyClient = {
  name: 'node-fetch',
  async get(url, proxy) {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', NODE_FETCH, url], { env: behind(proxy), cwd: REPO });
    return statusAndBody(stdout);
  },
};

const HTTPX = `
import sys, httpx
r = httpx.get(sys.argv[1])
sys.stdout.write(f"{r.status_code}\\n{r.text}")
`;

/** Python httpx (which reads `HTTP_PROXY` by itself), run by `python`. */
export function httpx(python: string): ProxyClient {
  return {
    name: 'httpx',
    async get(url, proxy) {
      const { stdout } = await run(python, ['-c', HTTPX, url], { env: behind(proxy) });
      return statusAndBody(stdout);
    },
  };
}

/** An origin that answers each GET with which origin it is and what it was asked. */
async function namedOrigin(name: string, cleanups: (() => unknown)[]): Promise<TestServer> {
  const server = await startServer(async (req, res) => {
    await readBody(req);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ origin: name, path: req.url }));
  });
  cleanups.push(() => server.close());
  return server;
}

/**
 * Records `clients` through `bench proxy` as their `HTTP_PROXY`, each asking
 * the target, an allowed second origin and a refused one; then replays the
 * cassette through `bench replay`, again as their `HTTP_PROXY`, and expects
 * every client to get what it got live.
 */
export async function recordAndReplayBehindProxy(clients: ProxyClient[], cleanups: (() => unknown)[]): Promise<void> {
  const [target, other, refused] = [
    await namedOrigin('target', cleanups),
    await namedOrigin('other', cleanups),
    await namedOrigin('refused', cleanups),
  ];
  const file = join(await mkdtemp(join(tmpdir(), 'tapedeck-forward-')), 'forward.yaml');
  const proxy = track(
    await startBench(['proxy', '--target', target.url, '--allow-origin', other.url, '--port', '0', '--cassette', file]),
    cleanups,
  );
  const live = new Map<string, { status: number; body: string }>();
  for (const client of clients) {
    // A client that tunnels (CONNECT) sees the 403 as a failed request, one that sends the absolute form as an answer.
    const refusedAnswer = await client
      .get(`${refused.url}/secret?c=${client.name}`, proxy.url)
      .catch((err: Error) => ({ status: /\b403\b/.test(err.message) ? 403 : 0, body: err.message }));
    expect(refusedAnswer.status, `${client.name}: ${refusedAnswer.body}`).toBe(403);
    for (const url of [`${target.url}/items?c=${client.name}`, `${other.url}/other/${client.name}`]) {
      const got = await client.get(url, proxy.url);
      expect(got.status, `${client.name} ${url}`).toBe(200);
      live.set(url, got);
    }
  }
  proxy.child.kill('SIGTERM');
  expect(await proxy.exit()).toBe(0);
  const cassette = await loadCassette(file);
  // Every exchange kept, with the origin it named; the refused ones cost nothing and are not recorded.
  expect(cassette.interactions.map((i) => `${i.request.origin} ${i.request.path} ${i.response?.status}`)).toEqual(
    clients.flatMap((c) => [`${target.url} /items?c=${c.name} 200`, `${other.url} /other/${c.name} 200`]),
  );
  const replay = track(await startBench(['replay', '--cassette', file, '--port', '0']), cleanups);
  for (const client of clients)
    for (const url of [`${target.url}/items?c=${client.name}`, `${other.url}/other/${client.name}`])
      expect(await client.get(url, replay.url), `${client.name} replays ${url}`).toEqual(live.get(url));
}

function track(p: LongRunning, cleanups: (() => unknown)[]): LongRunning {
  cleanups.push(() => {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  });
  return p;
}
