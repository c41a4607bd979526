import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { TapedeckError } from '../errors.js';
import type { PeerSpec } from '../families/index.js';

/** A real vendor server running in its own process group, with its own HOME, on 127.0.0.1. */
export interface PeerServer {
  /** The family's id (its `--target`). */
  kind: string;
  /** `http://…` for opencode serve, `ws://…` for codex app-server. */
  url: string;
  /** What the binary says its version is (`1.18.33`, `codex-cli 0.171.0`). */
  version: string;
  /** The key its clients must send, when the peer chose one (the hermes gateway's API key). */
  apiKey?: string;
  /** The throwaway folder holding its HOME, config and state; removed by `close`. */
  root: string;
  /** Stops the whole process group, anything else started under `root`, and removes `root`. */
  close(): Promise<void>;
}

export interface StartPeerOptions {
  /** The vendor binary (`opencode`, or `codex` from `@openai/codex-linux-x64`). */
  binary: string;
  /** The mock model's base URL (`…/v1`). */
  modelBaseUrl: string;
  /** How long the server may take to listen (ms). */
  startMs?: number;
}

/** The vendor server did not start; the message carries the end of its stderr. */
export class PeerStartError extends TapedeckError {
  constructor(message: string) {
    super('peer_start', message);
  }
}

const run = promisify(execFile);

/** Waits for the listening line on stdout or stderr; an exit or a timeout first is a PeerStartError with the output's tail. */
function waitListening(child: ChildProcess, pattern: RegExp, kind: string, startMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(`did not listen within ${startMs} ms`), startMs);
    const fail = (why: string) => {
      clearTimeout(timer);
      const tail = output.trim().split('\n').slice(-3).join(' | ');
      reject(new PeerStartError(`${kind} ${why}${tail ? `: ${tail}` : ''}; check the binary runs on its own (${kind} --version)`));
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const m = pattern.exec(output);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (err) => fail(`could not start (${err.message})`));
    child.once('exit', (code, signal) => fail(`exited (${signal ?? `code ${code}`}) before listening`));
  });
}

/** The pids of every process whose environment names `root`: what a peer started, even outside its group. */
export async function processesUnder(root: string): Promise<number[]> {
  const marker = Buffer.from(`TAPEDECK_PEER_ROOT=${root}\0`);
  const pids: number[] = [];
  for (const name of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const env = await readFile(`/proc/${name}/environ`).catch(() => undefined);
    if (env?.includes(marker)) pids.push(Number(name));
  }
  return pids;
}

const exited = (child: ChildProcess, ms: number) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(true)
    : new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });

/** Asks `isReady` every 200 ms until it says yes; the server exiting or `ms` passing first is a PeerStartError. */
async function untilReady(child: ChildProcess, kind: string, url: string, isReady: (url: string) => Promise<boolean>, ms: number) {
  const deadline = Date.now() + ms;
  while (!(await isReady(url).catch(() => false))) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new PeerStartError(`${kind} exited (${child.signalCode ?? `code ${child.exitCode}`}) before it was ready`);
    if (Date.now() > deadline) throw new PeerStartError(`${kind} did not become ready within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Signals a process (or, with a negative pid, a process group) that may be gone already. */
const signal = (pid: number | undefined, sig: NodeJS.Signals) => {
  try {
    if (pid) process.kill(pid, sig);
  } catch {
    // gone already
  }
};
const killGroup = (pid: number | undefined, sig: NodeJS.Signals) => signal(pid && -pid, sig);

/** Starts a family's real vendor server (its `PeerSpec`) against the mock model, isolated under a fresh temp folder. */
export async function startPeer(kind: string, spec: PeerSpec, given: StartPeerOptions): Promise<PeerServer> {
  // A path is taken from the caller's folder (the server runs in its own); a bare name is looked up on PATH.
  const options = { ...given, binary: given.binary.includes('/') ? resolve(given.binary) : given.binary };
  const root = await mkdtemp(join(tmpdir(), spec.rootPrefix ?? `tapedeck-peer-${kind}-`));
  const home = join(root, 'home');
  await mkdir(home, { recursive: true });
  // Only what the server needs: no credentials or settings of the caller leak into the vendor process.
  const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', TAPEDECK_PEER_ROOT: root };
  const launch = await spec.prepare(root, { modelBaseUrl: options.modelBaseUrl, baseEnv, binary: options.binary });
  const { args, env, listening } = launch;
  const cwd = join(root, 'work');
  await mkdir(cwd, { recursive: true });
  // Even `--version` runs isolated: opencode creates its cache, config and log folders under HOME on any start.
  const version = await run(options.binary, ['--version'], { cwd, env, timeout: 30_000 }).then(
    (r) => r.stdout.trim().split('\n')[0] as string,
    async (err: Error) => {
      await rm(root, { recursive: true, force: true });
      throw new PeerStartError(`${options.binary} --version failed (${err.message.split('\n')[0]}); give the path of the ${kind} binary`);
    },
  );
  // Each in its own process group, so stopping one stops whatever it spawned (tools, helpers).
  const start = (command: string, argv: string[], environment: Record<string, string>) =>
    spawn(command, argv, { cwd, env: environment, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const child = start(options.binary, args, env);
  const children = [child];
  const onExit = () => {
    for (const c of children) killGroup(c.pid, 'SIGKILL');
  };
  process.once('exit', onExit);
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      process.removeListener('exit', onExit);
      // Companions first: a runner outliving its server would only reconnect.
      for (const c of [...children].reverse()) {
        killGroup(c.pid, 'SIGTERM');
        if (!(await exited(c, 5000))) killGroup(c.pid, 'SIGKILL');
        await exited(c, 5000);
      }
      for (const pid of await processesUnder(root)) signal(pid, 'SIGKILL');
      for (const c of children) {
        c.stdout?.destroy();
        c.stderr?.destroy();
      }
      await launch.afterStop?.().catch(() => {});
      await rm(root, { recursive: true, force: true, maxRetries: 3 });
    })());
  try {
    const startMs = options.startMs ?? 60_000;
    const listened = listening ? await waitListening(child, listening, kind, startMs) : launch.url;
    if (!listened) throw new PeerStartError(`${kind}: its PeerSpec gives neither a listening line nor a URL`);
    const url = launch.urlOf?.(listened) ?? listened;
    // Keep draining its output so a chatty server never blocks on a full pipe.
    child.stdout?.resume();
    child.stderr?.resume();
    for (const c of launch.companions?.(url) ?? []) {
      const companion = start(c.command, c.args, c.env);
      children.push(companion);
      companion.stdout?.resume();
      companion.stderr?.resume();
    }
    if (launch.isReady) await untilReady(child, kind, url, launch.isReady, startMs);
    return { kind, url, version, root, close, ...(launch.apiKey ? { apiKey: launch.apiKey } : {}) };
  } catch (err) {
    await close();
    throw err;
  }
}
