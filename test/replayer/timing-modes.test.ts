import { once } from 'node:events';
import { setupServer } from 'msw/node';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { type Cassette, parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { startRecordingProxy } from '../../src/recorder/index.js';
import { cassetteHandlers, startReplayServer } from '../../src/replayer/index.js';
import { sleep, startServer } from '../helpers/servers.js';

/**
 * instant, realtime and scaled apply to WebSocket frames and to plain answers
 * in every door. Timings are compared as ratios of the recorded durations,
 * with room for a loaded machine.
 */

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const PAUSE_MS = 300;

/** A WebSocket server that answers one client frame with two frames, each after a pause; and a slow JSON route. */
async function recordSlowTraffic(): Promise<Cassette> {
  const server = await startServer(async (_req, res) => {
    await sleep(PAUSE_MS);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"slow":true}');
  });
  const wss = new WebSocketServer({ server: server.server });
  wss.on('connection', (ws) =>
    ws.on('message', async () => {
      await sleep(PAUSE_MS);
      ws.send('{"n":1}');
      await sleep(PAUSE_MS);
      ws.send('{"n":2}');
      ws.close(1000, 'done');
    }),
  );
  cleanups.push(() => server.close());
  const proxy = await startRecordingProxy({ target: server.url });
  await converse(`${proxy.url.replace('http', 'ws')}/ws`);
  await (await fetch(`${proxy.url}/slow`)).text();
  return parseCassette(serializeCassette(await proxy.close()));
}

/** Sends one frame and reads until the close; resolves with the frames and how long it took. */
async function converse(url: string): Promise<{ frames: string[]; ms: number }> {
  const ws = new WebSocket(url);
  await once(ws, 'open');
  const frames: string[] = [];
  ws.on('message', (m) => frames.push(String(m)));
  const started = performance.now();
  ws.send('{"go":true}');
  await once(ws, 'close');
  return { frames, ms: performance.now() - started };
}

describe('timing modes for WebSocket sessions and plain answers', () => {
  it('realtime keeps the recorded pauses between WebSocket frames, scaled halves them, instant drops them', async () => {
    const cassette = await recordSlowTraffic();
    const recorded = 2 * PAUSE_MS;
    const runs: Record<string, number> = {};
    for (const timing of ['realtime', 'scaled:0.5', 'instant']) {
      const replay = await startReplayServer([{ name: 'slow.yaml', cassette }], { timing });
      cleanups.push(() => replay.close());
      const { frames, ms } = await converse(`${replay.url.replace('http', 'ws')}/ws`);
      expect(frames).toEqual(['{"n":1}', '{"n":2}']);
      runs[timing] = ms;
    }
    expect(runs.realtime).toBeGreaterThan(0.9 * recorded);
    expect(runs.realtime).toBeLessThan(2 * recorded + 500);
    expect(runs['scaled:0.5']).toBeGreaterThan(0.45 * recorded);
    expect(runs['scaled:0.5']).toBeLessThan(runs.realtime as number);
    expect(runs.instant).toBeLessThan(0.5 * recorded);
  });

  it('the MSW door holds a plain answer as long as it took when recorded, like the server and undici doors', async () => {
    const cassette = await recordSlowTraffic();
    const timed: Record<string, number> = {};
    for (const timing of ['realtime', 'instant']) {
      const { handlers } = cassetteHandlers([{ name: 'slow.yaml', cassette }], { timing });
      const msw = setupServer(...handlers);
      msw.listen({ onUnhandledRequest: 'error' });
      try {
        const started = performance.now();
        const res = await fetch('http://replay.test/slow');
        expect(await res.json()).toEqual({ slow: true });
        timed[timing] = performance.now() - started;
      } finally {
        msw.close();
      }
    }
    expect(timed.realtime).toBeGreaterThan(0.9 * PAUSE_MS);
    expect(timed.instant).toBeLessThan(0.5 * PAUSE_MS);
  });
});
