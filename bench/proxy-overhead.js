import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { SseParser } from '../dist/sse/index.js';
import { fmt, fmtRange, percentile } from './measure.js';

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

/** One round: a fresh connection per path, the paths taken in `order`; medians of each. */
async function measureRound(paths, order, requests) {
  const out = {};
  for (const name of order) {
    const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
    await jsonLatencies(paths[name], 200, dispatcher); // warm-up
    const json = await jsonLatencies(paths[name], requests, dispatcher);
    const sse = await sseLatencies(paths[name], dispatcher);
    out[name] = {
      jsonMedian: percentile(json, 50),
      jsonP99: percentile(json, 99),
      sseMedian: percentile(sse.lat, 50),
      sseP99: percentile(sse.lat, 99),
      eventsPerSecond: sse.lat.length / sse.seconds,
    };
    await dispatcher.close();
  }
  return out;
}

/**
 * A fresh proxy process: milliseconds from spawning it to its `listening`
 * line, and from there to event 1 of the first stream through it (its first
 * connection and first forward, with whatever it compiles lazily).
 */
async function firstEventMs(args, target) {
  const spawned = performance.now();
  const proxy = await startProxyProcess(args(target));
  const listening = performance.now();
  try {
    const res = await request(`${proxy.url}/stream`);
    const parser = new SseParser();
    for await (const chunk of res.body) {
      if (parser.push(chunk).length > 0) {
        const ms = performance.now() - listening;
        res.body.destroy();
        return { startup: listening - spawned, first: ms };
      }
    }
    throw new Error('the stream ended with no event');
  } finally {
    proxy.close();
  }
}

const range = (values) => ({ min: Math.min(...values), max: Math.max(...values) });
const fmtMs = ({ min, max }) => `${fmt(min, 3)}-${fmt(max, 3)}`;

/** Latency each proxy adds over a direct connection, for JSON requests and SSE events, over interleaved rounds; and a fresh process's first event. */
export async function benchProxyOverhead({ requests = 2000, events = 10_000, rounds = 4 } = {}) {
  const { server, url } = await startServer(events);
  const minimal = await startProxyProcess([MINIMAL_BIN, url]);
  // A real cassette path (bench proxy refuses one that is not a file); the recorder is SIGKILLed, so only its journal is written.
  const scratch = await mkdtemp(join(tmpdir(), 'tapedeck-bench-proxy-'));
  const cassetteArgs = (target, name) => [BENCH_BIN, 'proxy', '--target', target, '--port', '0', '--cassette', join(scratch, name)];
  const recording = await startProxyProcess(cassetteArgs(url, 'bench.yaml'));
  const paths = { direct: url, minimal: minimal.url, 'bench proxy': recording.url };
  const perRound = [];
  const cold = { minimal: [], 'bench proxy': [] };
  try {
    for (let r = 0; r < rounds; r++) {
      // Each round in another order, so a loaded moment or a warmer cache favours no path.
      const order = r % 2 ? ['bench proxy', 'minimal', 'direct'] : ['direct', 'minimal', 'bench proxy'];
      perRound.push(await measureRound(paths, order, requests));
      cold.minimal.push(await firstEventMs((t) => [MINIMAL_BIN, t], url));
      cold['bench proxy'].push(await firstEventMs((t) => cassetteArgs(t, `cold-${r}.yaml`), url));
    }
  } finally {
    recording.close();
    minimal.close();
    await rm(scratch, { recursive: true, force: true });
    server.closeAllConnections();
    server.close();
  }
  const added = (round, name, key) => round[name][key] - round.direct[key];
  const ratios = (key) => range(perRound.map((round) => added(round, 'bench proxy', key) / added(round, 'minimal', key)));
  const jsonRatio = ratios('jsonMedian');
  const sseRatio = ratios('sseMedian');
  console.log(
    `proxy overhead, ${requests} sequential JSON requests and one stream of ${events} SSE events, ${rounds} interleaved rounds (ms, range over rounds; load average ${loadavg()[0].toFixed(2)}):`,
  );
  console.log('  path          json p50        json p99        sse p50         sse p99         events/s');
  for (const name of Object.keys(paths)) {
    const col = (key) => fmtMs(range(perRound.map((round) => round[name][key]))).padStart(15);
    const eps = range(perRound.map((round) => round[name].eventsPerSecond));
    console.log(
      `  ${name.padEnd(12)} ${col('jsonMedian')} ${col('jsonP99')} ${col('sseMedian')} ${col('sseP99')}  ${fmt(eps.min, 0)}-${fmt(eps.max, 0)}`,
    );
  }
  console.log(
    `  added median latency, bench proxy / minimal pipe proxy: json ${fmtRange(jsonRatio)} (target <= 1.2), sse ${fmtRange(sseRatio)} (target <= 1.2)`,
  );
  const of = (name, key) => range(cold[name].map((c) => c[key]));
  const coldGap = range(cold['bench proxy'].map((c, r) => c.first - (cold.minimal[r]?.first ?? 0)));
  console.log(
    `  a fresh process, from its listening line to event 1 of its first stream: minimal ${fmtMs(of('minimal', 'first'))} ms, bench proxy ${fmtMs(of('bench proxy', 'first'))} ms, gap ${fmtMs(coldGap)} ms (target <= 1)`,
  );
  console.log(
    `  and from spawn to its listening line: minimal ${fmtMs(of('minimal', 'startup'))} ms, bench proxy ${fmtMs(of('bench proxy', 'startup'))} ms`,
  );
  return { perRound, jsonRatio, sseRatio, cold, coldGap };
}

if (import.meta.url === `file://${process.argv[1]}`) await benchProxyOverhead();
