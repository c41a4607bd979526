import { rm } from 'node:fs/promises';
import { writeFileAtomic } from '../../cassette/index.js';
import { UsageError } from '../../errors.js';
import {
  describeUnused,
  type FaultRule,
  loadCassetteSet,
  parseFaultSpec,
  readFaultsFile,
  startReplayServer,
  writeUsageFile,
} from '../../replayer/index.js';
import { whenStopped } from '../stop-signal.js';

export interface ReplayFlags {
  maxRequestBody?: number;
  cassette?: string[];
  port: number;
  host: string;
  timing: string;
  strict?: boolean;
  lenient?: boolean;
  quiet?: boolean;
  onMiss?: number;
  config?: string;
  pidFile?: string;
  readyFile?: string;
  usage?: string;
  fault?: string[];
  faults?: string;
  faultSeed?: number;
}

export const REPLAY_HELP = `
The first line on stdout is "listening on URL"; one line per request goes to
stderr. SSE events are released causally: an event recorded after the client's
POST waits until this client has sent that POST again. GET /__tapedeck/health
answers 200 while it serves (a path no recording of a real server holds).

It stops on Ctrl-C, SIGTERM or SIGHUP, and when the wrapper that started it
(npx, a script) goes away, unless it was given --pid-file: then it is a
background server that outlives the shell that started it, to be stopped by
that PID. --ready-file gets the URL once it listens. On exit it lists recorded
interactions no client asked for, and removes both files.

FAULTS break the transport on chosen answers, to test a client's retries,
timeouts and reconnects (fuzz varies content; faults break delivery). A rule
has a kind and selectors (method, path glob, cassette, seq, call: the nth
matching call, times, probability drawn from --fault-seed). Kinds: status
(with header.NAME=value), reset (before headers), reset-after, stall and
malformed (after events=N, bytes=N or, for a WebSocket, frames=N), latency
(ms=N), ws-close (code=N, frames=N), duplicate-event and drop-event (event=N).
Each fault fired is logged; on exit a count per rule.

Examples:
  $ bench replay --cassette cassettes/kiro-native --port 8080 --timing realtime
  $ bench replay api.yaml --fault kind=status,status=503,header.retry-after=1,call=1
  $ bench replay api.yaml --fault kind=reset-after,events=2,path=/v1/stream --fault-seed 7
  $ bench replay cassettes/kiro-native cassettes/claude-native --on-miss 500
  $ bench replay cassettes/kiro-native --pid-file replay.pid --ready-file replay.url &
  $ kill "$(cat replay.pid)"`;

/** Serves the cassettes until stopped; exit 1 when a strict replay matched nothing for some request. */
export async function runReplay(positional: string[], flags: ReplayFlags): Promise<number> {
  if (flags.strict && flags.lenient) throw new UsageError('--strict and --lenient exclude each other; pick one');
  // A signal; or the wrapper that started us (npx, a shell) gone, unless a PID file says how we will be stopped.
  const stopped = whenStopped(() => {}, { watchParent: flags.pidFile === undefined });
  const paths = [...positional, ...(flags.cassette ?? [])];
  if (paths.length === 0)
    throw new UsageError('name the cassettes to serve: bench replay FILE|FOLDER..., or --cassette FILE|FOLDER (repeatable)');
  const set = [];
  for (const path of paths) set.push(...(await loadCassetteSet(path)));
  const faults = await faultsOf(flags);
  const server = await startReplayServer(set, {
    ...(flags.config ? { config: flags.config } : {}),
    ...faults,
    onFault: (f) =>
      process.stderr.write(
        `bench replay: fault ${f.kind} (rule ${f.rule + 1}, call ${f.call}) on ${f.method} ${f.path} → ${f.cassette} #${f.seq}\n`,
      ),
    port: flags.port,
    host: flags.host,
    timing: flags.timing,
    mode: flags.lenient ? 'lenient' : 'strict',
    ...(flags.onMiss ? { onMiss: flags.onMiss } : {}),
    ...(flags.maxRequestBody ? { maxRequestBody: flags.maxRequestBody } : {}),
    ...(flags.quiet ? {} : { log: (line: string) => process.stderr.write(`bench replay: ${line}\n`) }),
  });
  const files = [flags.pidFile, flags.readyFile].filter((f): f is string => f !== undefined);
  try {
    if (flags.pidFile) await writeFileAtomic(flags.pidFile, `${process.pid}\n`);
    if (flags.readyFile) await writeFileAtomic(flags.readyFile, `${server.url}\n`);
    process.stdout.write(`listening on ${server.url}\n`);
    await stopped;
  } finally {
    await server.close();
    await Promise.all(files.map((f) => rm(f, { force: true })));
  }
  if (flags.usage) await writeUsageFile(flags.usage, server.engine.usage());
  if (faults.faults.length > 0) process.stderr.write(`bench replay: ${faultSummary(faults.faults, server.engine.faultsByRule)}\n`);
  const unused = server.engine.unused();
  if (unused.length > 0)
    process.stderr.write(
      `bench replay: ${unused.length} recorded interactions were never requested: ${describeUnused(unused.slice(0, 20))}${unused.length > 20 ? ', …' : ''}${flags.usage ? ` (bench prune --usage ${flags.usage} removes them)` : ''}\n`,
    );
  return server.engine.missCount > 0 && server.engine.mode === 'strict' ? 1 : 0;
}

/** The rules from --faults and --fault (the file's first), and the seed: --fault-seed, else the file's, else 0. */
async function faultsOf(flags: ReplayFlags): Promise<{ faults: FaultRule[]; faultSeed: number }> {
  const file = flags.faults ? await readFaultsFile(flags.faults) : undefined;
  const faults = [...(file?.faults ?? []), ...(flags.fault ?? []).map(parseFaultSpec)];
  return { faults, faultSeed: flags.faultSeed ?? file?.seed ?? 0 };
}

/** How often each rule fired: a run whose fault never fired says so. */
function faultSummary(rules: readonly FaultRule[], fired: readonly number[]): string {
  const byRule = rules.map((rule, n) => `rule ${n + 1} ${rule.kind} ×${fired[n] ?? 0}`);
  return `injected ${fired.reduce((a, b) => a + b, 0)} faults: ${byRule.join(', ')}`;
}
