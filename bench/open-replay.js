import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { decodeBody, loadCassette, serializeCassette } from '../dist/cassette/index.js';
import { cassetteDispatcher, startReplayServer } from '../dist/replayer/index.js';
import { generateCassette } from './generate-cassette.js';
import { fmtRange, ratioRange } from './measure.js';

// Polly ships CommonJS for Node; its ES build imports lodash-es paths Node cannot resolve.
const require = createRequire(import.meta.url);
const { Polly } = require('@pollyjs/core');
const FetchAdapter = require('@pollyjs/adapter-fetch');
const FSPersister = require('@pollyjs/persister-fs');

Polly.register(FetchAdapter);
Polly.register(FSPersister);

const ORIGIN = 'http://127.0.0.1:9';

function pollyFor(recordingsDir, mode) {
  return new Polly('open-replay', {
    mode,
    recordIfMissing: false,
    adapters: ['fetch'],
    adapterOptions: { fetch: { context: globalThis } },
    persister: 'fs',
    persisterOptions: { fs: { recordingsDir } },
    logLevel: 'silent',
    matchRequestsBy: { headers: false, order: false },
  });
}

function fetchInit(i) {
  const body = decodeBody(i.request.body);
  return { method: i.request.method, headers: i.request.headers, ...(body.byteLength ? { body } : {}) };
}

/**
 * Opening a replay of a 10k-interaction cassette and serving its first
 * request, against JSON.parse of the same content and Polly replaying the
 * same traffic from its HAR; every side starts from its file on disk.
 */
export async function benchOpenReplay({ interactions = 10_000 } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-bench-open-'));
  try {
    const cassette = generateCassette(interactions);
    const file = join(dir, 'items.yaml');
    await writeFile(file, serializeCassette(cassette));
    const loaded = await loadCassette(file);
    const jsonFile = join(dir, 'items.json');
    await writeFile(jsonFile, JSON.stringify(loaded));
    // Polly records the same requests and answers, served by a replay of the cassette.
    const server = await startReplayServer([{ name: 'items.yaml', cassette: loaded }]);
    const recording = pollyFor(dir, 'record');
    recording.server.host(ORIGIN, () => {}); // nothing intercepted by hand: every request goes to the network
    for (const i of loaded.interactions) await (await fetch(`${server.url}${i.request.path}`, fetchInit(i))).arrayBuffer();
    await recording.stop();
    await server.close();
    const first = loaded.interactions[0];
    const firstUrl = `${server.url}${first.request.path}`;

    const jsonParse = async () => JSON.parse(await readFile(jsonFile, 'utf8'));
    const tapedeck = async () => {
      const dispatcher = cassetteDispatcher([{ name: 'items.yaml', cassette: await loadCassette(file) }]);
      const res = await request(`${ORIGIN}${first.request.path}`, { ...fetchInit(first), dispatcher });
      await res.body.arrayBuffer();
    };
    const polly = async () => {
      const p = pollyFor(dir, 'replay');
      const res = await fetch(firstUrl, fetchInit(first));
      await res.arrayBuffer();
      await p.stop();
    };
    const tapedeckRange = await ratioRange(jsonParse, tapedeck, { rounds: 4, runs: 5 });
    const pollyRange = await ratioRange(jsonParse, polly, { rounds: 4, runs: 5 });
    const versusPolly = await ratioRange(polly, tapedeck, { rounds: 4, runs: 5 });
    console.log(
      `open a replay of ${interactions} interactions from disk and serve the first request (load average ${loadavg()[0].toFixed(2)}):`,
    );
    console.log(`  tapedeck (load, validate, engine, undici door)  ${fmtRange(tapedeckRange)} JSON.parse (target <= 2.5)`);
    console.log(`  Polly (fetch adapter, fs persister, its HAR)    ${fmtRange(pollyRange)} JSON.parse`);
    console.log(`  tapedeck / Polly                                ${fmtRange(versusPolly)} (target < 1)`);
    return { tapedeck: tapedeckRange, polly: pollyRange, versusPolly };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchOpenReplay();
