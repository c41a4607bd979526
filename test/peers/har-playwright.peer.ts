import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { loadCassette } from '../../src/cassette/index.js';
import { runBench, startBench } from '../helpers/cli.js';
import { launchChromium } from './chromium.js';

// A page that uses the three things a browser HAR holds: fetch, EventSource and a WebSocket.
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>har</title><link rel="icon" href="data:,"></head>
<body><pre id="out"></pre><script>
const out = { fetch: null, events: [], ws: [] };
let pending = 3;
const done = () => { if (--pending === 0) { document.getElementById('out').textContent = JSON.stringify(out); document.body.dataset.done = 'true'; } };
fetch('/api/hello?n=1', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ask: 'hello' }) })
  .then((r) => r.json()).then((j) => { out.fetch = j; done(); });
const es = new EventSource('/events');
es.addEventListener('tick', (e) => out.events.push(JSON.parse(e.data)));
es.onerror = () => { if (out.events.length >= 3) { es.close(); done(); } };
const ws = new WebSocket('ws://' + location.host + '/ws');
ws.onopen = () => ws.send(JSON.stringify({ op: 'ping', n: 1 }));
ws.onmessage = (m) => {
  out.ws.push(JSON.parse(m.data));
  if (out.ws.length === 2) { ws.close(); done(); } else ws.send(JSON.stringify({ op: 'ping', n: 2 }));
};
</script></body></html>`;

function startLiveSite(): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(PAGE);
    } else if (req.url?.startsWith('/api/hello')) {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        // Compressed, as servers answer a browser: the HAR holds the decoded body, the cassette the coding.
        const json = JSON.stringify({ hello: 'world', asked: JSON.parse(body).ask });
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(json));
      });
    } else if (req.url === '/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      let n = 0;
      const tick = setInterval(() => {
        n++;
        res.write(`event: tick\ndata: ${JSON.stringify({ n })}\n\n`);
        if (n === 3) {
          clearInterval(tick);
          res.end();
        }
      }, 20);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  const wss = new WebSocketServer({ server, path: '/ws' });
  wss.on('connection', (socket) =>
    socket.on('message', (data) => {
      const { n } = JSON.parse(String(data)) as { n: number };
      socket.send(JSON.stringify({ op: 'pong', n }));
    }),
  );
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let browser: Browser;
let dir: string;
beforeAll(async () => {
  browser = await launchChromium();
  dir = await mkdtemp(join(tmpdir(), 'tapedeck-har-'));
});
afterAll(async () => {
  await browser?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Loads the page and returns what it saw once all three channels finished. */
async function runPage(url: string, recordHar?: string): Promise<string> {
  const context = await browser.newContext(recordHar ? { recordHar: { path: recordHar, content: 'embed' } } : {});
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('body[data-done="true"]', { timeout: 20_000 });
  const seen = (await page.locator('#out').textContent()) as string;
  await context.close();
  return seen;
}

describe("a HAR recorded by Playwright's recordHar, from Chromium", () => {
  it('imports into a cassette that bench replay serves back to the same page: fetch, EventSource and WebSocket alike', async () => {
    const site = await startLiveSite();
    const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const har = join(dir, 'page.har');
    let live: string;
    try {
      live = await runPage(`${origin}/`, har);
    } finally {
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
    }
    expect(JSON.parse(live)).toEqual({
      fetch: { hello: 'world', asked: 'hello' },
      events: [{ n: 1 }, { n: 2 }, { n: 3 }],
      ws: [
        { op: 'pong', n: 1 },
        { op: 'pong', n: 2 },
      ],
    });
    const recorded = JSON.parse(await readFile(har, 'utf8')) as { log: { creator: { name: string }; entries: unknown[] } };
    expect(recorded.log.creator.name).toBe('Playwright');

    const cassette = join(dir, 'page.yaml');
    const imported = await runBench(['har', 'import', har, '-o', cassette]);
    expect(imported.code, imported.stderr).toBe(0);
    const loaded = await loadCassette(cassette);
    const byPath = (p: string) => loaded.interactions.find((i) => i.request.path.startsWith(p));
    expect(byPath('/events')?.response?.stream?.events.map((e) => e.data)).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
    expect(byPath('/api/hello')?.request.body).toEqual({ json: { ask: 'hello' } });
    expect(byPath('/api/hello')?.response).toMatchObject({ encoding: 'gzip', body: { json: { hello: 'world', asked: 'hello' } } });
    const frames = byPath('/ws')?.response?.websocket?.frames ?? [];
    expect(frames.map((f) => [f.from, f.json])).toEqual([
      ['client', { op: 'ping', n: 1 }],
      ['server', { op: 'pong', n: 1 }],
      ['client', { op: 'ping', n: 2 }],
      ['server', { op: 'pong', n: 2 }],
    ]);

    // Offline: the live site is gone, the replay serves the page and everything it asks for.
    const replay = await startBench(['replay', cassette]);
    try {
      expect(await runPage(`${replay.url}/`)).toBe(live);
    } finally {
      replay.child.kill('SIGTERM');
      expect(await replay.exit()).toBe(0);
    }
    expect(replay.stderr()).not.toContain('tapedeck_unmatched_request');
  });

  it("a cassette exported as HAR is one Playwright's routeFromHAR serves a page from", async () => {
    const cassette = join(dir, 'page.yaml');
    const exported = join(dir, 'again.har');
    expect((await runBench(['har', 'export', cassette, '-o', exported])).code).toBe(0);
    const loaded = await loadCassette(cassette);
    const context = await browser.newContext();
    // Every HTTP request of the page answered from the exported HAR, none from the network.
    await context.routeFromHAR(exported, { notFound: 'abort' });
    const page = await context.newPage();
    await page.goto(`${loaded.meta.target}/`);
    const hello = await page.evaluate<unknown>(
      `fetch('/api/hello?n=1', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ask: 'hello' }) }).then((r) => r.json())`,
    );
    expect(hello).toEqual({ hello: 'world', asked: 'hello' });
    await context.close();
  });
});
