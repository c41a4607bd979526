import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { SseParser } from '../dist/sse/index.js';
import { fmt, percentile } from './measure.js';

const BENCH_BIN = fileURLToPath(new URL('../bin/bench.js', import.meta.url));
const MINIMAL_BIN = fileURLToPath(new URL('./minimal-proxy.js', import.meta.url));
const clock = () => performance.timeOrigin + performance.now();

function startServer(events) {
  const body = JSON.stringify({
    object: 'list',
    data: Array.from({ length: 8 }, (_, i) => ({ id: `item_${i}`, type: 'message', text: 'x'.repeat(80) })),
  });
  const server = http.createServer((req, res) => {
    if (req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      // Paced like a model streaming tokens (two events a millisecond), so the
      // latency measured is forwarding, not a backlog of an unpaced producer.
      let k = 0;
      const timer = setInterval(() => {
        for (let n = 0; n < 2 && k < events; n++) {
          res.write(`event: response.output_text.delta\ndata: {"k":${k++},"sent":${clock()}}\n\n`);
        }
        if (k === events) {
          clearInterval(timer);
          res.end('data: [DONE]\n\n');
        }
      }, 1);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })),
  );
}

/** Starts a proxy in its own process (both proxies alike) and waits for its `listening on` line. */
async function startProxyProcess(args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /^listening on (\S+)\n/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
  return { url, close: () => child.kill('SIGKILL') };
}

async function jsonLatencies(base, count, dispatcher) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    const res = await request(`${base}/v1/sessions/x/items`, { dispatcher });
    await res.body.text();
    times.push(performance.now() - t);
  }
  return times;
}

async function sseLatencies(base, dispatcher) {
  const res = await request(`${base}/stream`, { dispatcher });
  const parser = new SseParser();
  const lat = [];
  const start = performance.now();
  for await (const chunk of res.body) {
    const now = clock();
    for (const f of parser.push(chunk)) {
      if (f.kind === 'event' && f.data !== '[DONE]') lat.push(now - JSON.parse(f.data).sent);
    }
  }
  return { lat, seconds: (performance.now() - start) / 1000 };
}

/** Latency each proxy adds over a direct connection, for JSON requests and SSE events. */
export async function benchProxyOverhead({ requests = 2000, events = 10_000 } = {}) {
  const { server, url } = await startServer(events);
  const minimal = await startProxyProcess([MINIMAL_BIN, url]);
  // A real cassette path (bench proxy refuses one that is not a file); the recorder is SIGKILLed, so only its journal is written.
  const scratch = await mkdtemp(join(tmpdir(), 'tapedeck-bench-proxy-'));
  const recording = await startProxyProcess([
    BENCH_BIN,
    'proxy',
    '--target',
    url,
    '--port',
    '0',
    '--cassette',
    join(scratch, 'bench.yaml'),
  ]);
  const paths = { direct: url, minimal: minimal.url, 'bench proxy': recording.url };
  const results = {};
  try {
    for (const [name, base] of Object.entries(paths)) {
      const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
      await jsonLatencies(base, 200, dispatcher); // warm-up
      const json = await jsonLatencies(base, requests, dispatcher);
      const sse = await sseLatencies(base, dispatcher);
      results[name] = {
        jsonMedian: percentile(json, 50),
        jsonP99: percentile(json, 99),
        sseMedian: percentile(sse.lat, 50),
        sseP99: percentile(sse.lat, 99),
        eventsPerSecond: sse.lat.length / sse.seconds,
      };
      await dispatcher.close();
    }
  } finally {
    recording.close();
    minimal.close();
    await rm(scratch, { recursive: true, force: true });
    server.closeAllConnections();
    server.close();
  }
  const d = results.direct;
  const added = (r) => ({
    json50: r.jsonMedian - d.jsonMedian,
    json99: r.jsonP99 - d.jsonP99,
    sse50: r.sseMedian - d.sseMedian,
    sse99: r.sseP99 - d.sseP99,
  });
  const addMin = added(results.minimal);
  const addRec = added(results['bench proxy']);
  console.log(`proxy overhead, ${requests} sequential JSON requests and one stream of ${events} SSE events (ms):`);
  console.log('  path          json p50  json p99   sse p50   sse p99   events/s');
  for (const [name, r] of Object.entries(results)) {
    console.log(
      `  ${name.padEnd(12)} ${fmt(r.jsonMedian, 3).padStart(9)} ${fmt(r.jsonP99, 3).padStart(9)} ${fmt(r.sseMedian, 3).padStart(9)} ${fmt(r.sseP99, 3).padStart(9)} ${fmt(r.eventsPerSecond, 0).padStart(10)}`,
    );
  }
  console.log(
    `  added over direct: minimal json p50 ${fmt(addMin.json50, 3)} p99 ${fmt(addMin.json99, 3)}, sse p50 ${fmt(addMin.sse50, 3)} p99 ${fmt(addMin.sse99, 3)}`,
  );
  console.log(
    `                     bench   json p50 ${fmt(addRec.json50, 3)} p99 ${fmt(addRec.json99, 3)}, sse p50 ${fmt(addRec.sse50, 3)} p99 ${fmt(addRec.sse99, 3)}`,
  );
  const jsonRatio = addRec.json50 / addMin.json50;
  const sseRatio = addRec.sse50 / addMin.sse50;
  console.log(`  ratio bench/minimal added median latency: json ${fmt(jsonRatio)}x, sse ${fmt(sseRatio)}x (target <= 1.5)`);
  return { results, jsonRatio, sseRatio };
}

if (import.meta.url === `file://${process.argv[1]}`) await benchProxyOverhead();
