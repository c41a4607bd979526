import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { loadCassette, serializeCassette } from '../dist/cassette/index.js';
import { generateCassette } from './generate-cassette.js';
import { fmt } from './measure.js';

const BENCH_BIN = fileURLToPath(new URL('../bin/bench.js', import.meta.url));
const DIST = new URL('../dist/', import.meta.url).href;

/** Peak RSS (MB) of a fresh process that loads a cassette file and builds its replay (the undici door). */
function loadedRssMb(file) {
  const script = `
    const { loadCassette } = await import(${JSON.stringify(`${DIST}cassette/index.js`)});
    const { cassetteDispatcher } = await import(${JSON.stringify(`${DIST}replayer/index.js`)});
    const dispatcher = cassetteDispatcher([{ name: 'big', cassette: await loadCassette(${JSON.stringify(file)}) }]);
    if (!dispatcher.engine) throw new Error('no engine');
    process.stdout.write(String(process.resourceUsage().maxRSS / 1024));`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

/** Records `count` JSON requests through a `bench proxy` process, then stops it with SIGINT: ms from the signal to its exit. */
async function stopMs(dir, count, round) {
  const server = http.createServer((req, res) => {
    const body = JSON.stringify({ id: req.url, object: 'item', text: 'x'.repeat(64) });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const target = `http://127.0.0.1:${server.address().port}`;
  const file = join(dir, `stop-${round}.yaml`);
  const child = spawn(process.execPath, [BENCH_BIN, 'proxy', '--target', target, '--port', '0', '--cassette', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const url = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const m = /^listening on (\S+)\n/m.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`bench proxy exited ${code} before listening`)));
    });
    const agent = new Agent({ keepAliveTimeout: 10_000, connections: 8 });
    // Eight clients at once, as a test suite's workers would send them.
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < count) {
          const k = next++;
          await (await request(`${url}/v1/items/${k}`, { dispatcher: agent })).body.text();
        }
      }),
    );
    await agent.close();
    const signalled = performance.now();
    child.kill('SIGINT');
    const code = await exited;
    const ms = performance.now() - signalled;
    if (code !== 0) throw new Error(`bench proxy exited ${code} after SIGINT`);
    const saved = (await loadCassette(file)).interactions.length;
    if (saved !== count) throw new Error(`saved ${saved} of ${count} interactions`);
    return ms;
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    server.close();
  }
}

/** `npm run bench` part: what a 50k-interaction recording costs to stop and to hold once loaded. */
export async function benchBigRecordings({ interactions = 50_000, rounds = 2 } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-bench-big-'));
  try {
    const file = join(dir, 'big.yaml');
    const text = serializeCassette(generateCassette(interactions));
    await writeFile(file, text);
    const rss = [];
    for (let r = 0; r < rounds; r++) rss.push(loadedRssMb(file));
    const stops = [];
    for (let r = 0; r < rounds; r++) stops.push(await stopMs(dir, interactions, r));
    console.log(`recordings of ${interactions} interactions, ${rounds} rounds:`);
    console.log(
      `  peak RSS of a process that loads one (${fmt(text.length / 1e6, 1)} MB YAML) and builds its replay: ${fmt(Math.min(...rss), 0)}-${fmt(Math.max(...rss), 0)} MB (target < 250)`,
    );
    console.log(
      `  bench proxy, SIGINT to exit with all ${interactions} saved: ${fmt(Math.min(...stops), 0)}-${fmt(Math.max(...stops), 0)} ms (target < 1000)`,
    );
    return { rss, stops };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchBigRecordings();
