import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_BIN = fileURLToPath(new URL('../../bin/bench.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `bench ...args` to completion as a real process. */
export async function runBench(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [BENCH_BIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

export interface LongRunning {
  child: ChildProcess;
  /** The URL from the `listening on ...` first line. */
  url: string;
  stderr(): string;
  /** Resolves when stderr has printed a line containing `text`. */
  waitForStderr(text: string): Promise<void>;
  exit(): Promise<number | null>;
}

/** The URL a process prints first on stdout (`listening on URL`); rejects with `why()` when it exits before. */
export function listeningUrl(child: ChildProcess, exited: Promise<unknown>, why: (code: unknown) => string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d) => {
      out += d;
      const m = /^listening on (\S+)\n/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    exited.then((code) => reject(new Error(why(code))));
  });
}

/** Starts a long-running `bench` command and waits for its `listening on` line. */
export async function startBench(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<LongRunning> {
  const child = spawn(process.execPath, [BENCH_BIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stderr?.on('data', (d) => {
    stderr += d;
    for (const w of [...waiters]) {
      if (stderr.includes(w.text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const url = await listeningUrl(child, exited, (code) => `bench exited (${code}) before listening: ${stderr}`);
  return {
    child,
    url,
    stderr: () => stderr,
    waitForStderr: (text) => (stderr.includes(text) ? Promise.resolve() : new Promise((resolve) => waiters.push({ text, resolve }))),
    exit: () => exited,
  };
}

export interface WrappedBench {
  /** The wrapper's PID: what a script that started `npx bench` would kill. */
  wrapperPid: number;
  stderr(): string;
  /** Resolves once stderr matches. */
  waitFor(pattern: RegExp): Promise<void>;
  /** Resolves with the match once stdout matches (`listening on URL`). */
  waitForStdout(pattern: RegExp): Promise<RegExpExecArray>;
  /** Resolves when the stderr pipe closes: its last writer, bench itself, has exited. */
  ended: Promise<void>;
}

/** Runs `bench ...args` under `sh -c`, as npx or a script would: sh stays its parent (`; true`) and passes no signal on. */
export function benchUnderWrapper(args: string[]): WrappedBench {
  const quoted = args.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const wrapper = spawn('sh', ['-c', `"${process.execPath}" "${BENCH_BIN}" ${quoted}; true`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  const outWaiters: { pattern: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  wrapper.stdout.on('data', (d) => {
    stdout += d;
    for (const w of [...outWaiters]) {
      const m = w.pattern.exec(stdout);
      if (m) {
        outWaiters.splice(outWaiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  wrapper.stderr.on('data', (d) => {
    stderr += d;
    for (const w of [...waiters])
      if (w.pattern.test(stderr)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  });
  return {
    wrapperPid: wrapper.pid as number,
    stderr: () => stderr,
    waitFor: (pattern) => (pattern.test(stderr) ? Promise.resolve() : new Promise((resolve) => waiters.push({ pattern, resolve }))),
    waitForStdout: (pattern) => {
      const m = pattern.exec(stdout);
      return m ? Promise.resolve(m) : new Promise((resolve) => outWaiters.push({ pattern, resolve }));
    },
    ended: new Promise((resolve) => wrapper.stderr.on('close', () => resolve())),
  };
}

/**
 * `bench proxy` recording `target` into a fresh folder's `name`, started by a wrapper (as `npx bench` is); `cleanups`
 * gets what kills it, for the test's end.
 */
export async function benchProxyUnderWrapper(target: string, name: string, cleanups: (() => Promise<unknown>)[]) {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-proxy-'));
  const file = join(dir, name);
  const bench = benchUnderWrapper(['proxy', '--target', target, '--port', '0', '--cassette', file]);
  cleanups.push(async () => {
    if (existsSync(`/proc/${bench.wrapperPid}`)) process.kill(bench.wrapperPid, 'SIGKILL');
    await bench.ended;
  });
  const url = (await bench.waitForStdout(/listening on (\S+)\n/))[1] as string;
  return { file, url, bench };
}

/** `bench replay --quiet` of `file` as a process, stopped by `cleanups` at the test's end. */
export async function benchReplayOf(file: string, cleanups: (() => Promise<unknown>)[], flags: string[] = []): Promise<LongRunning> {
  const replay = await startBench(['replay', '--quiet', ...flags, file]);
  cleanups.push(async () => {
    replay.child.kill('SIGTERM');
    await replay.exit();
  });
  return replay;
}
