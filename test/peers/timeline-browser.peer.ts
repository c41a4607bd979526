import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generateCassette } from '../../bench/generate-cassette.js';
import { serializeCassette } from '../../src/cassette/index.js';
import { runBench } from '../helpers/cli.js';
import { launchChromium } from './chromium.js';

const ARTIFACTS = resolve('.artifacts/timeline');

interface RawItem {
  at: number;
  after: number;
  from?: string;
  seq?: number;
  data?: string;
}
interface RawInteraction {
  seq: number;
  response?: { stream?: { events: RawItem[] }; websocket?: { frames: RawItem[] } };
}

/** What the page must draw, counted from the cassette's YAML without tapedeck's code. */
async function expected(file: string) {
  const doc = parse(await readFile(file, 'utf8')) as { interactions: RawInteraction[] };
  const sources = new Set<number>();
  let marks = 0;
  let streams = 0;
  for (const i of doc.interactions) {
    sources.add(i.seq);
    const items = i.response?.stream?.events ?? i.response?.websocket?.frames;
    marks += 1 + (items ? items.length + 1 : 0);
    if (items) streams++;
    for (const f of i.response?.websocket?.frames ?? []) if (f.seq !== undefined) sources.add(f.seq);
  }
  let arrows = 0;
  for (const i of doc.interactions)
    for (const item of i.response?.stream?.events ?? i.response?.websocket?.frames ?? [])
      if (item.seq === undefined && item.after !== i.seq && sources.has(item.after)) arrows++;
  return { marks, streams, arrows, interactions: doc.interactions };
}

let browser: Browser;
let dir: string;

beforeAll(async () => {
  browser = await launchChromium();
  dir = await mkdtemp(join(tmpdir(), 'tapedeck-timeline-'));
  await mkdir(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Opens a page from disk, counting every request the page makes besides its own file. */
async function open(html: string): Promise<{ page: Page; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1500, height: 900 } });
  const requests: string[] = [];
  page.on('request', (r) => {
    if (r.url() !== pathToFileURL(html).href) requests.push(r.url());
  });
  await page.goto(pathToFileURL(html).href);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, requests };
}

async function timeline(name: string, args: string[]): Promise<{ html: string; stderr: string }> {
  const html = join(dir, `${name}.html`);
  const r = await runBench(['timeline', ...args, '-o', html]);
  expect(r.code, r.stderr).toBe(0);
  return { html, stderr: r.stderr };
}

const count = (page: Page, selector: string) => page.locator(selector).count();

describe('bench timeline in a real browser (headless Debian Chromium)', () => {
  it('an omnigent cassette (SSE and polling): every lane, mark and causal arrow, no network, a click shows the payload', async () => {
    const file = 'cassettes/kiro-native/streaming.yaml';
    const want = await expected(file);
    const { html } = await timeline('omnigent', [file]);
    const { page, requests } = await open(html);
    expect(await count(page, '.mark')).toBe(want.marks);
    expect(await count(page, '.lane[data-kind="sse"]')).toBe(want.streams);
    // Polls and posts share request lanes; there are fewer of those than requests, and at least one.
    const requestLanes = await count(page, '.lane[data-kind="requests"]');
    expect(requestLanes).toBeGreaterThan(0);
    expect(requestLanes).toBeLessThan(want.interactions.length - want.streams);
    expect(await count(page, '.arrow')).toBe(want.arrows);
    expect(want.arrows).toBeGreaterThan(0);
    // An event a POST released, clicked where it is drawn: its payload is the event's data.
    // (Page code as text: it runs in the browser, not under this file's Node types.)
    const to = await page.evaluate<string | null>(`(() => {
      for (const a of document.querySelectorAll('.arrow')) {
        const el = document.querySelector('.mark[data-mark="' + a.getAttribute('data-to') + '"]');
        const box = el.getBoundingClientRect();
        if (document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2) === el) return el.getAttribute('data-mark');
      }
      return null;
    })()`);
    expect(to).not.toBeNull();
    await page.locator(`.mark[data-mark="${to}"]`).click();
    const title = (await page.locator('#detail-title').textContent()) as string;
    const [, seq, index] = /^#(\d+) event (\d+):/.exec(title) as unknown as [string, string, string];
    const item = want.interactions.find((i) => i.seq === Number(seq))?.response?.stream?.events[Number(index)] as RawItem;
    expect(item.after).not.toBe(Number(seq));
    expect(await page.locator('#payload').textContent()).toBe(JSON.stringify(JSON.parse(item.data as string), null, 2));
    // Its link to the POST lights up.
    expect(await page.locator('.arrow.lit').count()).toBeGreaterThan(0);
    // Marks drawn on one another: a second click on the same spot steps to the next.
    const stacked = await page.evaluate<{ x: number; y: number } | null>(`(() => {
      for (const el of document.querySelectorAll('.mark.event')) {
        const box = el.getBoundingClientRect();
        const under = document.elementsFromPoint(box.x + box.width / 2, box.y + box.height / 2).filter((x) => x.classList.contains('mark'));
        if (under.length > 1 && under[0] === el) return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
      }
      return null;
    })()`);
    if (stacked) {
      await page.mouse.click(stacked.x, stacked.y);
      const first = await page.locator('#detail-title').textContent();
      await page.mouse.click(stacked.x, stacked.y);
      expect(await page.locator('#detail-title').textContent()).not.toBe(first);
    }
    await page.screenshot({ path: join(ARTIFACTS, 'omnigent-streaming.png'), fullPage: true });
    expect(requests).toEqual([]);
    await page.close();
  });

  it('a codex cassette (WebSocket): client frames release server frames, drawn as arrows', async () => {
    const file = 'cassettes/codex-app-server/tool_approved.yaml';
    const want = await expected(file);
    const { html } = await timeline('codex', [file, '--verify']);
    const { page, requests } = await open(html);
    expect(await count(page, '.mark')).toBe(want.marks);
    expect(await count(page, '.lane[data-kind="websocket"]')).toBe(want.streams);
    expect(await count(page, '.mark.client-frame')).toBeGreaterThan(0);
    expect(await count(page, '.arrow')).toBe(want.arrows);
    expect(want.arrows).toBeGreaterThan(0);
    // The committed cassette keeps its contract: --verify marks nothing.
    expect(await count(page, '.mark.violation')).toBe(0);
    await page.locator('.mark.client-frame').first().click();
    expect(await page.locator('#payload').textContent()).toMatch(/"method": "initialize"/);
    await page.screenshot({ path: join(ARTIFACTS, 'codex-websocket.png'), fullPage: true });
    expect(requests).toEqual([]);
    await page.close();
  });

  it('--verify and --drift put violations and findings on the marks they concern', async () => {
    const pack = join(dir, 'quiet.yaml');
    await writeFile(
      pack,
      "name: team/quiet\nrules:\n  - kind: never\n    name: quiet\n    event: '*'\n    after: session.resource.created\n",
    );
    const verify = await runBench(['verify', 'cassettes/claude-native/streaming.yaml', '--pack', pack, '--format', 'json']);
    const violations = (JSON.parse(verify.stdout) as { violations: unknown[] }).violations.length;
    expect(violations).toBeGreaterThan(0);
    const drift = await runBench([
      'drift',
      '--baseline',
      'cassettes/kiro-native',
      '--candidate',
      'cassettes/claude-native',
      '--format',
      'json',
    ]);
    expect(drift.code).toBe(1);
    const { html, stderr } = await timeline('drift', [
      'cassettes/claude-native/streaming.yaml',
      '--verify',
      '--pack',
      pack,
      '--drift',
      'cassettes/kiro-native',
    ]);
    const placed = Number(/on (\d+) marks/.exec(stderr)?.[1]);
    const { page, requests } = await open(html);
    expect(await count(page, '.mark.violation')).toBe(violations);
    expect(placed).toBeGreaterThan(0);
    expect(await count(page, '.mark.drift')).toBeGreaterThan(0);
    expect(await count(page, '.mark.drift')).toBeLessThanOrEqual(placed);
    await page.locator('.mark.drift').first().click();
    expect(await page.locator('#notes li.drift-note').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(ARTIFACTS, 'drift.png'), fullPage: true });
    expect(requests).toEqual([]);
    await page.close();
  });

  it('a 10k-interaction cassette: the page draws every mark, and writing it costs no more than three loads of the cassette', async () => {
    const file = join(dir, 'big.yaml');
    await writeFile(file, serializeCassette(generateCassette(10_000)));
    const want = await expected(file);
    const t0 = performance.now();
    expect((await runBench(['inspect', file])).code).toBe(0);
    const inspect = performance.now() - t0;
    const t1 = performance.now();
    const { html } = await timeline('big', [file]);
    const write = performance.now() - t1;
    expect(write / inspect).toBeLessThan(3);
    const { page, requests } = await open(html);
    expect(await count(page, '.mark')).toBe(want.marks);
    expect(requests).toEqual([]);
    await page.close();
  });
});
