import { spawn } from 'node:child_process';
import { basename } from 'node:path';
import fc from 'fast-check';
import { type Cassette, loadCassette } from '../cassette/index.js';
import type { Pack } from '../contracts/index.js';
import { startReplayServer } from '../replayer/index.js';
import { describeMiss, echoesVariation } from './client-misses.js';
import { exploreCassette, type FuzzCase, type FuzzReport } from './fuzz-cassette.js';

export interface ClientFuzzOptions {
  /** The client as a shell command; `{url}` stands for the replay server's URL of each variation. */
  command: string;
  runs?: number;
  seed?: number;
  packs?: readonly (string | Pack)[];
  /** Cassettes fuzzed at once, each variation on a replay server of its own (default 2). */
  jobs?: number;
  /** How long one run of the client may take before it counts as hung (default 30 s). */
  timeoutMs?: number;
  /** A folder for each shrunk counterexample, saved as `<cassette>.counterexample.yaml`. */
  saveCounterexamples?: string;
  onDone?: (row: ClientFuzzRow) => void;
}

export interface ClientFuzzRow {
  file: string;
  report: FuzzReport;
  /** The slowest run of the client, in ms. */
  slowestMs: number;
}

/** What a run of the command did: its exit, the end of what it printed, its time. */
interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  ms: number;
  timedOut: boolean;
}

const TAIL = 600;

/** Runs the client once, by its PID's whole process group, killed past the time bound. */
function runClient(command: string, timeoutMs: number): Promise<Ran> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const keep = (d: Buffer) => {
      output = (output + d.toString('utf8')).slice(-TAIL);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-(child.pid as number), signal);
      } catch {
        // Gone already.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // What the client left running (a backgrounded curl) goes with it.
      kill('SIGKILL');
      resolve({ code, signal, output: output.trim(), ms: performance.now() - started, timedOut });
    });
  });
}

/** One variation served on a port of its own, the client run against it, and its verdict: exit 0, the recorded requests, in time. */
async function clientHolds(c: FuzzCase, o: ClientFuzzOptions, slowest: { ms: number }): Promise<void> {
  const server = await startReplayServer(c.cassettes, c.replay);
  let ran: Ran;
  try {
    ran = await runClient(o.command.replaceAll('{url}', server.url), o.timeoutMs ?? 30_000);
  } finally {
    await server.close();
  }
  slowest.ms = Math.max(slowest.ms, ran.ms);
  const miss = server.engine.misses[0];
  // A client that rightly sent back the varied text asked for what no recording holds: not its fault.
  if (miss) fc.pre(!echoesVariation(miss, c.applied));
  const said = ran.output ? `; it printed: ${ran.output.split('\n').slice(-3).join(' | ')}` : '';
  if (ran.timedOut) throw new Error(`the client ran past ${((o.timeoutMs ?? 30_000) / 1000).toFixed(0)} s and was killed${said}`);
  if (miss) throw new Error(describeMiss(miss));
  if (ran.code !== 0) throw new Error(`the client exited with ${ran.code ?? ran.signal}${said}`);
  const unused = server.engine.unused();
  if (unused.length > 0)
    throw new Error(`the client never sent ${unused.map((u) => `${u.method} ${u.path}`).join(', ')}, which the recording holds`);
}

/** Fuzzes one cassette against the client. */
async function fuzzOne(file: string, o: ClientFuzzOptions): Promise<ClientFuzzRow> {
  const cassette: Cassette = await loadCassette(file);
  const slowest = { ms: 0 };
  const name = basename(file).replace(/\.ya?ml$/, '');
  const report = await exploreCassette(
    cassette,
    {
      name,
      runs: o.runs ?? 50,
      ...(o.seed === undefined ? {} : { seed: o.seed }),
      ...(o.packs ? { packs: o.packs } : {}),
      ...(o.saveCounterexamples ? { saveCounterexample: `${o.saveCounterexamples}/${name}.counterexample.yaml` } : {}),
    },
    (c) => clientHolds(c, o, slowest),
  );
  return { file, report, slowestMs: slowest.ms };
}

/**
 * Throws legal variations of each recording at a client in any language: each is served by the replay engine on a
 * port of its own and the command is run against it, `--jobs` recordings at a time.
 */
export async function fuzzClient(files: readonly string[], o: ClientFuzzOptions): Promise<ClientFuzzRow[]> {
  const rows: ClientFuzzRow[] = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const n = next++;
      const row = await fuzzOne(files[n] as string, o);
      rows[n] = row;
      o.onDone?.(row);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.jobs ?? 2, files.length)) }, worker));
  return rows;
}
