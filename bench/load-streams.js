import http from 'node:http';
import { startRecordingProxy } from '../dist/recorder/index.js';
import { SseParser } from '../dist/sse/index.js';

/** A server with many SSE streams of numbered events, and a JSON route. */
export function startLoadServer(eventsPerStream) {
  const server = http.createServer((req, res) => {
    if (req.url.startsWith('/json/')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: req.url.slice(6) }));
      return;
    }
    const stream = req.url.split('/')[2];
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let k = 0;
    const burst = () => {
      // A few events per tick, like a busy model; the rest on the next turn of the loop.
      for (let n = 0; n < 25 && k < eventsPerStream; n++, k++) res.write(`event: tick\ndata: {"s":${stream},"k":${k}}\n\n`);
      if (k < eventsPerStream) setImmediate(burst);
      else res.end();
    };
    burst();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })),
  );
}

/**
 * Runs `streams` concurrent SSE streams and `json` concurrent JSON requests
 * through one recording proxy. Returns what the clients saw, the cassette, and
 * throughput and peak RSS.
 */
export async function runLoad({ streams = 200, eventsPerStream = 500, json = 200 } = {}) {
  const { server, url } = await startLoadServer(eventsPerStream);
  const proxy = await startRecordingProxy({ target: url });
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 20);
  const started = performance.now();
  const seen = await Promise.all([
    ...Array.from({ length: streams }, async (_, s) => {
      const res = await fetch(`${proxy.url}/stream/${s}`);
      const parser = new SseParser();
      const ks = [];
      for await (const chunk of res.body) for (const f of parser.push(chunk)) ks.push(JSON.parse(f.data).k);
      return ks;
    }),
    ...Array.from({ length: json }, async (_, j) => (await (await fetch(`${proxy.url}/json/${j}`)).json()).id),
  ]);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const cassette = await proxy.close();
  server.close();
  return {
    seen: seen.slice(0, streams),
    jsonIds: seen.slice(streams),
    cassette,
    seconds,
    eventsPerSecond: (streams * eventsPerStream) / seconds,
    peakRssMb: peakRss / 1024 / 1024,
  };
}

/** `npm run bench` part: events/s and peak RSS under load. */
export async function benchLoad() {
  const r = await runLoad();
  console.log(`load through the recording proxy: 200 SSE streams x 500 events + 200 JSON requests, concurrently`);
  console.log(
    `  ${r.seconds.toFixed(2)} s, ${Math.round(r.eventsPerSecond)} events/s, peak RSS ${r.peakRssMb.toFixed(0)} MB (server, proxy and clients in one process)`,
  );
  return r;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchLoad();
