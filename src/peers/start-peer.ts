import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { TapedeckError } from '../errors.js';
import { MOCK_MODEL } from '../simulator/model/index.js';

export type PeerKind = 'opencode' | 'codex';

/** A real vendor server running in its own process group, with its own HOME, on 127.0.0.1. */
export interface PeerServer {
  kind: PeerKind;
  /** `http://…` for opencode serve, `ws://…` for codex app-server. */
  url: string;
  /** What the binary says its version is (`1.18.33`, `codex-cli 0.171.0`). */
  version: string;
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
/** A key the mock model accepts; not a credential of anything. */
const MOCK_KEY = 'tapedeck-mock-model';

/** A free port on 127.0.0.1 for servers that cannot report the one they took (opencode reads `--port 0` as 4096). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** opencode's config (§6): the mock provider through the bundled openai-compatible SDK, and bash asks first. */
function opencodeConfig(modelBaseUrl: string) {
  return {
    $schema: 'https://opencode.ai/config.json',
    model: `mock/${MOCK_MODEL}`,
    small_model: `mock/${MOCK_MODEL}`,
    autoupdate: false,
    share: 'disabled',
    permission: { bash: 'ask' },
    provider: {
      mock: {
        npm: '@ai-sdk/openai-compatible',
        name: 'tapedeck mock model',
        options: { baseURL: modelBaseUrl, apiKey: MOCK_KEY },
        models: { [MOCK_MODEL]: { name: 'tapedeck mock model', tool_call: true, limit: { context: 100_000, output: 4096 } } },
      },
    },
  };
}

/** codex's config (§6): the Responses wire API against the mock, no OpenAI login, commands unsandboxed. */
const codexConfig = (modelBaseUrl: string) =>
  [
    `model = "${MOCK_MODEL}"`,
    'model_provider = "mock"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    '',
    '[model_providers.mock]',
    'name = "tapedeck mock model"',
    `base_url = "${modelBaseUrl}"`,
    'wire_api = "responses"',
    'env_key = "MOCK_API_KEY"',
    'requires_openai_auth = false',
    'supports_websockets = false',
    '',
  ].join('\n');

/** Writes the isolated folders and config; returns the command line, environment and what its listening line looks like. */
async function prepare(kind: PeerKind, root: string, options: StartPeerOptions) {
  const home = join(root, 'home');
  await mkdir(home, { recursive: true });
  // Only what the server needs: no credentials or settings of the caller leak into the vendor process.
  const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', TAPEDECK_PEER_ROOT: root };
  if (kind === 'opencode') {
    const xdg = Object.fromEntries(
      ['DATA', 'CONFIG', 'CACHE', 'STATE'].map((k) => [`XDG_${k}_HOME`, join(root, 'xdg', k.toLowerCase())] as const),
    );
    for (const dir of Object.values(xdg)) await mkdir(dir, { recursive: true });
    await mkdir(join(xdg.XDG_CONFIG_HOME as string, 'opencode'), { recursive: true });
    await writeFile(
      join(xdg.XDG_CONFIG_HOME as string, 'opencode', 'opencode.json'),
      JSON.stringify(opencodeConfig(options.modelBaseUrl), null, 2),
    );
    const port = await freePort();
    return {
      // --pure: no external plugins, so the first boot installs nothing from the registry.
      args: ['serve', '--port', String(port), '--hostname', '127.0.0.1', '--pure'],
      env: {
        ...base,
        ...xdg,
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      },
      listening: /listening on (http:\/\/\S+)/,
    };
  }
  const codexHome = join(root, 'codex');
  await mkdir(codexHome, { recursive: true });
  await writeFile(join(codexHome, 'config.toml'), codexConfig(options.modelBaseUrl));
  return {
    args: ['app-server', '--listen', 'ws://127.0.0.1:0'],
    env: { ...base, CODEX_HOME: codexHome, MOCK_API_KEY: MOCK_KEY },
    listening: /listening on: (ws:\/\/\S+)/,
  };
}

/** Waits for the listening line on stdout or stderr; an exit or a timeout first is a PeerStartError with the output's tail. */
function waitListening(child: ChildProcess, pattern: RegExp, kind: PeerKind, startMs: number): Promise<string> {
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

/** Signals a process (or, with a negative pid, a process group) that may be gone already. */
const signal = (pid: number | undefined, sig: NodeJS.Signals) => {
  try {
    if (pid) process.kill(pid, sig);
  } catch {
    // gone already
  }
};
const killGroup = (pid: number | undefined, sig: NodeJS.Signals) => signal(pid && -pid, sig);

/** Starts a real opencode serve or codex app-server against the mock model, isolated under a fresh temp folder. */
export async function startPeer(kind: PeerKind, given: StartPeerOptions): Promise<PeerServer> {
  // A path is taken from the caller's folder (the server runs in its own); a bare name is looked up on PATH.
  const options = { ...given, binary: given.binary.includes('/') ? resolve(given.binary) : given.binary };
  const root = await mkdtemp(join(tmpdir(), `tapedeck-peer-${kind}-`));
  const { args, env, listening } = await prepare(kind, root, options);
  const cwd = join(root, 'work');
  await mkdir(cwd, { recursive: true });
  // Even `--version` runs isolated: opencode creates its cache, config and log folders under HOME on any start.
  const version = await run(options.binary, ['--version'], { cwd, env, timeout: 30_000 }).then(
    (r) => r.stdout.trim(),
    async (err: Error) => {
      await rm(root, { recursive: true, force: true });
      throw new PeerStartError(`${options.binary} --version failed (${err.message.split('\n')[0]}); give the path of the ${kind} binary`);
    },
  );
  // Its own process group, so stopping it stops whatever it spawned (tools, helpers).
  const child = spawn(options.binary, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const onExit = () => killGroup(child.pid, 'SIGKILL');
  process.once('exit', onExit);
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      process.removeListener('exit', onExit);
      killGroup(child.pid, 'SIGTERM');
      if (!(await exited(child, 5000))) killGroup(child.pid, 'SIGKILL');
      await exited(child, 5000);
      for (const pid of await processesUnder(root)) signal(pid, 'SIGKILL');
      child.stdout?.destroy();
      child.stderr?.destroy();
      await rm(root, { recursive: true, force: true, maxRetries: 3 });
    })());
  try {
    const url = await waitListening(child, listening, kind, options.startMs ?? 60_000);
    // Keep draining its output so a chatty server never blocks on a full pipe.
    child.stdout?.resume();
    child.stderr?.resume();
    return { kind, url, version, root, close };
  } catch (err) {
    await close();
    throw err;
  }
}
