import { rm } from 'node:fs/promises';
import { writeFileAtomic } from '../../cassette/index.js';
import { loadRedactionConfig } from '../../config.js';
import { UsageError } from '../../errors.js';
import { loadCassetteSet, loadMatchConfig, startReplayServer } from '../../replayer/index.js';
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

Examples:
  $ bench replay --cassette cassettes/kiro-native --port 8080 --timing realtime
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
  const redact = await loadRedactionConfig(flags.config);
  const match = await loadMatchConfig(flags.config);
  const set = [];
  for (const path of paths) set.push(...(await loadCassetteSet(path)));
  const server = await startReplayServer(set, {
    redact,
    ...match,
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
  const unused = server.engine.unused();
  if (unused.length > 0) process.stderr.write(`bench replay: ${unused.length} recorded interactions were never requested\n`);
  return server.engine.missCount > 0 && server.engine.mode === 'strict' ? 1 : 0;
}
