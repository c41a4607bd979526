import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { HttpResponse, http as mswHttp, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import { SnapshotAgent } from 'undici';
import { loadCassette } from '../dist/cassette/index.js';
import { recordingDispatcher } from '../dist/recorder/index.js';
import { cassetteDispatcher, cassetteHandlers } from '../dist/replayer/index.js';
import { fmt, percentile } from './measure.js';

/**
 * The doors as a user measures them (issue #44): 1,000 distinct JSON GETs, each tool replaying what it recorded
 * itself, one request after another with the global `fetch`. Every figure is a range over interleaved rounds:
 * in each round every tool runs in turn, several times, and its median is divided by msw's (a handler answering
 * from what msw captured) in that same round, so a loaded moment moves one round, not a figure.
 */

// Polly ships CommonJS for Node; its ES build imports lodash-es paths Node cannot resolve.
const require = createRequire(import.meta.url);
const { Polly } = require('@pollyjs/core');
const FetchAdapter = require('@pollyjs/adapter-fetch');
const FSPersister = require('@pollyjs/persister-fs');
Polly.register(FetchAdapter);
Polly.register(FSPersister);

const BENCH = fileURLToPath(new URL('../bin/bench.js', import.meta.url));
const MINIMAL_PROXY = fileURLToPath(new URL('./minimal-proxy.js', import.meta.url));
const COUNT = 1000;
const POLLS = 50;

/** The body of item `i`, as an API lists one. */
function bodyFor(i) {
  return JSON.stringify({
    object: 'list',
    data: [{ id: `item_${i}`, type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `reply ${i}` }] }],
    has_more: false,
  });
}

/** The source of a plain server answering item `i` and a poll whose answer counts up: run in its own process. */
const SERVER = `
const http = require('node:http');
${bodyFor.toString()}
let polls = 0;
const server = http.createServer((req, res) => {
  const path = req.url.split('?')[0];
  const body = path === '/v1/poll' ? JSON.stringify({ n: ++polls }) : bodyFor(Number(path.split('/').pop()));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
// As long as bench replay keeps an idle connection (net/listen.ts), so the two servers differ only in what they serve.
server.keepAliveTimeout = 65000;
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
`;

/** A child process that prints `listening on URL` first; stopped by its PID. */
async function child(args) {
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const url = await new Promise((resolve, reject) => {
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited (${code}) before listening`)));
  });
  return {
    url,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      await once(proc, 'exit');
    },
  };
}

/** What a user's requests carry (issue #54): a query string and three headers on each, which matching must normalise. */
const HEADERS = { accept: 'application/json', 'x-trace-id': 'bench-trace', 'x-client': 'tapedeck-bench/1' };

async function gets(base, init) {
  for (let i = 0; i < COUNT; i++) await (await fetch(`${base}/v1/items/${i}?v=1`, { headers: HEADERS, ...init })).json();
}

async function polls(base, init) {
  const seen = [];
  for (let i = 0; i < POLLS; i++) seen.push((await (await fetch(`${base}/v1/poll?v=1`, { headers: HEADERS, ...init })).json()).n);
  return seen;
}

/** Wall time of `fn`, in ms. */
async function timed(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Each tool: how it records what `origin` answers, and then how it replays that to `fetch`. */
function pollyFor(recordingsDir, mode) {
  return new Polly('doors', {
    mode,
    recordIfMissing: false,
    adapters: ['fetch'],
    adapterOptions: { fetch: { context: globalThis } },
    persister: 'fs',
    persisterOptions: { fs: { recordingsDir } },
    logLevel: 'silent',
    matchRequestsBy: { headers: false, order: true },
  });
}

/**
 * Each tool's recording, timed as a range: a warm-up pass, then `rounds` rounds in which every tool records afresh
 * (a new recorder, journal and save each time) `runs` times, the tools taking turns in an order that rotates from
 * one round to the next. µs per request, one value per round: the median of its runs, so one unlucky moment of a
 * loaded machine moves a run, not a round. A recorder returns the ms its timed part took, or nothing to be timed whole.
 */
async function recordRounds(recorders, rounds, runs) {
  const names = Object.keys(recorders);
  const perRequest = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r <= rounds; r++) {
    const taken = Object.fromEntries(names.map((n) => [n, []]));
    for (let run = 0; run < (r === 0 ? 1 : runs); run++)
      for (const name of [...names.slice(r % names.length), ...names.slice(0, r % names.length)]) {
        globalThis.gc?.();
        const t = performance.now();
        const own = await recorders[name]();
        taken[name].push(typeof own === 'number' ? own : performance.now() - t);
      }
    if (r > 0) for (const name of names) perRequest[name].push((percentile(taken[name], 50) * 1000) / (COUNT + POLLS));
  }
  return perRequest;
}

/** The tools, recorded: each returns its per-request recording times and how to replay (`setup`/`teardown` outside the timing). */
async function recordAll(origin, dir, recordRoundCount, recordRuns) {
  const tools = {};
  const recorders = {};

  // msw: a passthrough handler, its responses captured from the life-cycle events.
  const captured = new Map();
  const capturing = setupServer(mswHttp.get(`${origin}/*`, () => passthrough()));
  capturing.events.on('response:bypass', async ({ request, response }) => {
    const list = captured.get(request.url) ?? [];
    list.push(await response.clone().text());
    captured.set(request.url, list);
  });
  recorders.msw = async () => {
    captured.clear();
    capturing.listen({ onUnhandledRequest: 'error' });
    await gets(origin);
    await polls(origin);
    capturing.close();
  };

  // undici's SnapshotAgent, record then playback.
  const snapshotPath = join(dir, 'snapshots.json');
  recorders.SnapshotAgent = async () => {
    const recorder = new SnapshotAgent({ mode: 'record', snapshotPath });
    await gets(origin, { dispatcher: recorder });
    await polls(origin, { dispatcher: recorder });
    await recorder.saveSnapshots();
    await recorder.close();
  };

  // Polly.JS with its fetch adapter and file persister.
  recorders.Polly = async () => {
    const p = pollyFor(dir, 'record');
    await gets(origin);
    await polls(origin);
    await p.stop();
  };

  // The floor under any recording proxy: a pipe proxy (node:http, keep-alive) that records nothing, in its own
  // process as `bench proxy` is. Each proxy is timed from its first request to its exit (the save, for tapedeck).
  const outOfProcess = async (args) => {
    const proxy = await child(args);
    const t = performance.now();
    await gets(proxy.url);
    await polls(proxy.url);
    await proxy.stop();
    return performance.now() - t;
  };
  recorders['pipe proxy'] = () => outOfProcess([MINIMAL_PROXY, origin]);

  // tapedeck: `bench proxy` with its journal, saved to a cassette when stopped; then each door replays it.
  const file = join(dir, 'items.yaml');
  recorders['tapedeck proxy'] = () => outOfProcess([BENCH, 'proxy', '--quiet', '--port', '0', '--target', origin, '--cassette', file]);
  // tapedeck in the test's process, where SnapshotAgent records: journaled and saved the same way.
  const inProcess = join(dir, 'in-process.yaml');
  recorders['tapedeck in-process'] = async () => {
    const recorder = await recordingDispatcher({ target: origin, journal: { file: `${inProcess}.journal` } });
    await gets(origin, { dispatcher: recorder });
    await polls(origin, { dispatcher: recorder });
    await recorder.save(inProcess);
    await recorder.discardJournal();
  };
  const perRequest = await recordRounds(recorders, recordRoundCount, recordRuns);

  // Each replays the recording its last round made.
  const served = new Map();
  const mswReplay = setupServer(
    mswHttp.get(`${origin}/*`, ({ request }) => {
      const list = captured.get(request.url) ?? [];
      const k = served.get(request.url) ?? 0;
      served.set(request.url, k + 1);
      return HttpResponse.text(list[Math.min(k, list.length - 1)], { headers: { 'content-type': 'application/json' } });
    }),
  );
  tools.msw = {
    setup: () => {
      served.clear();
      mswReplay.listen({ onUnhandledRequest: 'error' });
    },
    run: () => gets(origin),
    polls: () => polls(origin),
    teardown: () => mswReplay.close(),
  };
  let playback;
  tools.SnapshotAgent = {
    setup: () => {
      playback = new SnapshotAgent({ mode: 'playback', snapshotPath });
    },
    run: () => gets(origin, { dispatcher: playback }),
    polls: () => polls(origin, { dispatcher: playback }),
    teardown: () => playback.close(),
  };
  let polly;
  tools.Polly = {
    setup: () => {
      polly = pollyFor(dir, 'replay');
    },
    run: () => gets(origin),
    polls: () => polls(origin),
    teardown: () => polly.stop(),
  };
  const set = [{ name: 'items.yaml', cassette: await loadCassette(file) }];
  let door;
  tools['MSW door'] = {
    setup: () => {
      door = setupServer(...cassetteHandlers(set).handlers);
      door.listen({ onUnhandledRequest: 'error' });
    },
    run: () => gets(origin),
    polls: () => polls(origin),
    teardown: () => door.close(),
  };
  let dispatcher;
  tools['undici door'] = {
    setup: () => {
      dispatcher = cassetteDispatcher(set);
    },
    run: () => gets(origin, { dispatcher }),
    polls: () => polls(origin, { dispatcher }),
    teardown: () => dispatcher.close(),
  };
  return { tools, perRequest, file };
}

/**
 * Interleaved rounds: each round runs every tool `runs` times in turn (its setup and teardown outside the timing)
 * and keeps each one's median; the ratio of a tool to msw is taken within a round.
 */
async function rounds(tools, { rounds: count = 4, runs = 5 } = {}) {
  const names = Object.keys(tools);
  const medians = [];
  for (let r = 0; r < count; r++) {
    const times = Object.fromEntries(names.map((n) => [n, []]));
    for (let k = 0; k < runs + 1; k++) {
      // A rotating order, so no tool always runs after the same one; the first pass warms up, unmeasured.
      for (const name of [...names.slice(k % names.length), ...names.slice(0, k % names.length)]) {
        const tool = tools[name];
        await tool.setup?.();
        globalThis.gc?.();
        const ms = await timed(tool.run);
        await tool.teardown?.();
        if (k > 0) times[name].push(ms);
      }
    }
    medians.push(Object.fromEntries(names.map((n) => [n, percentile(times[n], 50)])));
  }
  return medians;
}

const range = (values) => `${fmt(Math.min(...values))}-${fmt(Math.max(...values))}`;

/** The doors against msw, SnapshotAgent, Polly and a plain server: the rows of issue #44, each a range with its peer. */
export async function benchDoors({ rounds: count = 4, runs = 5, recordRounds: recordRoundCount = 4, recordRuns = 3 } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-bench-doors-'));
  const origin = await child(['-e', SERVER]);
  try {
    const { tools, perRequest, file } = await recordAll(origin.url, dir, recordRoundCount, recordRuns);
    await origin.stop();
    // The servers a client reaches over loopback: a plain one in its own process, and `bench replay` in its own.
    const plain = await child(['-e', SERVER]);
    const replay = await child([BENCH, 'replay', '--quiet', '--port', '0', file]);
    tools['plain server'] = { run: () => gets(plain.url) };
    tools['bench replay'] = { run: () => gets(replay.url), polls: () => polls(replay.url) };
    // Polls, instant: every tool's 50 answers to one URL, in the order they were recorded?
    const inOrder = {};
    for (const [name, tool] of Object.entries(tools)) {
      if (!tool.polls) continue;
      await tool.setup?.();
      const seen = await tool.polls();
      await tool.teardown?.();
      // One origin answered every tool's recording, its counter going on: in order is one more each time.
      inOrder[name] = seen.every((n, k) => n === (seen[0] ?? 0) + k);
    }
    const before = loadavg()[0];
    const medians = await rounds(tools, { rounds: count, runs });
    const after = loadavg()[0];
    await plain.stop();
    await replay.stop();
    const versus = (a, b) => medians.map((m) => m[a] / m[b]);
    const rows = [
      [
        'MSW door ÷ msw handler',
        `Polly-fetch ${range(versus('Polly', 'msw'))}`,
        range(versus('MSW door', 'msw')),
        '<= 1.1',
        versus('MSW door', 'msw'),
      ],
      [
        'undici door ÷ SnapshotAgent',
        `SnapshotAgent ${range(versus('SnapshotAgent', 'msw'))} ÷ msw`,
        `${range(versus('undici door', 'msw'))} ÷ msw → ${range(versus('undici door', 'SnapshotAgent'))}`,
        '<= 1.0',
        versus('undici door', 'SnapshotAgent'),
        1.0,
      ],
      [
        '`bench replay` ÷ plain loopback server',
        `loopback ${range(versus('plain server', 'msw'))} ÷ msw`,
        `${range(versus('bench replay', 'msw'))} ÷ msw → ${range(versus('bench replay', 'plain server'))}`,
        '<= 1.1',
        versus('bench replay', 'plain server'),
        1.1,
      ],
    ];
    rows[0].push(1.1);
    console.log(
      `the doors, ${COUNT} distinct recorded JSON GETs with the global fetch, each tool replaying its own recording; ${count} interleaved rounds of ${runs} runs (load average ${fmt(before)} before, ${fmt(after)} after):`,
    );
    console.log('  figure | peers | tapedeck | target');
    for (const [figure, peers, ours, target, ratios, limit] of rows)
      console.log(`  ${figure} | ${peers} | ${ours} | ${target} ${Math.max(...ratios) <= limit ? '✓' : '✗'}`);
    // Recording rows: a ratio per round (both tools recorded in that round), shown as a range with each tool's µs.
    const perRound = (a, b) => perRequest[a].map((v, k) => v / perRequest[b][k]);
    const us = (n) => `${fmt(Math.min(...perRequest[n]), 0)}-${fmt(Math.max(...perRequest[n]), 0)}`;
    const inProcess = perRound('tapedeck in-process', 'SnapshotAgent');
    console.log(
      `  record, µs per request (${COUNT + POLLS} requests, journaled and saved; ${recordRoundCount} interleaved rounds, the median of ${recordRuns} runs each) | msw ${us('msw')}, SnapshotAgent ${us('SnapshotAgent')}, Polly ${us('Polly')} | in-process ${us('tapedeck in-process')} → ${range(inProcess)} ÷ SnapshotAgent | <= 1.0 ${Math.max(...inProcess) <= 1.0 ? '✓' : '✗'}`,
    );
    const pipeRatio = perRound('tapedeck proxy', 'pipe proxy');
    console.log(
      `  recording proxy ÷ a pipe proxy that records nothing (both in their own process) | pipe ${us('pipe proxy')} µs | ${us('tapedeck proxy')} µs → ${range(pipeRatio)} | <= 1.15 ${Math.max(...pipeRatio) <= 1.15 ? '✓' : '✗'}`,
    );
    const order = Object.entries(inOrder).map(([n, ok]) => `${n} ${ok ? '✓' : '✗'}`);
    console.log(`  ${POLLS} polls of one URL, instant, in recorded order | ${order.join(', ')}`);
    return { medians, perRequest, inOrder };
  } finally {
    await origin.stop().catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchDoors();
