import { createHash, randomBytes } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { access, mkdir, readdir, rm, rmdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { UsageError } from '../../errors.js';
import { loadOnUse } from '../../fs/load-on-use.js';
import { isAlive } from '../../fs/process-alive.js';
import { MOCK_KEY, MOCK_MODEL } from '../../mock-model/index.js';
import { freePort } from '../../net/listen.js';
import type { PeerLaunch, PeerSpec } from '../family.js';
import { codexConfigFor } from '../shared/codex-config.js';
import { INTERNAL_ORIGIN } from './origin.js';

// YAML is written only when a peer starts: loaded then, not by every command that reads the registry.
const yaml = loadOnUse<typeof import('yaml')>('yaml');

/** The runner id a tunnel binding token authorises, as the server derives it (`token_bound_runner_id`). */
export const runnerIdFor = (token: string) =>
  `runner_token_${createHash('sha256').update(`omnigent-runner:${token}`).digest('hex').slice(0, 32)}`;

/** Whether the server answers and reports `runnerId` online. */
async function runnerOnline(url: string, runnerId: string): Promise<boolean> {
  const res = await fetch(`${url}/v1/runners/${runnerId}/status`, { headers: { origin: INTERNAL_ORIGIN } });
  return res.status === 200 && ((await res.json()) as { online?: unknown }).online === true;
}

/** How `omnigent server` is launched for a peer: its database and artifacts under the root, on a free 127.0.0.1 port. */
async function serverLaunch(
  root: string,
  env: Record<string, string>,
  rest: Pick<PeerLaunch, 'companions' | 'isReady' | 'afterStop'>,
): Promise<PeerLaunch> {
  const port = await freePort();
  return {
    args: [
      'server',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--database-uri',
      `sqlite:///${join(root, 'omnigent.db')}`,
      '--artifact-location',
      join(root, 'artifacts'),
    ],
    env,
    listening: /Starting omnigent server on (\S+:\d+)/,
    urlOf: (hostPort) => `http://${hostPort}`,
    ...rest,
  };
}

/**
 * Where omnigent's `serve-mcp` bridge puts its socket when it cannot see
 * OMNIGENT_HARNESS_TMP_PARENT: codex starts its MCP servers with a short list
 * of variables of its own, and omnigent writes that server's config without an
 * `env`. A killed TUI leaves `mcp-<pid>.sock` there.
 */
const BRIDGE_FALLBACK = `/tmp/omnigent-${process.getuid?.() ?? 0}`;

/** Removes the sockets of dead bridges from the fallback folder (the rule `serve-mcp` reaps by), and the folder if this peer's start made it. */
async function reapBridgeSockets(folderWasThere: boolean): Promise<void> {
  const names = await readdir(BRIDGE_FALLBACK).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(/^mcp-(\d+)\.sock$/.exec(name)?.[1]);
    if (Number.isInteger(pid) && !isAlive(pid)) await rm(join(BRIDGE_FALLBACK, name), { force: true });
  }
  if (!folderWasThere) await rmdir(BRIDGE_FALLBACK).catch(() => {});
}

/** The environment every omnigent process of a peer shares: everything it writes stays under the root, the mock model is its OpenAI. */
async function isolatedEnv(root: string, baseEnv: Record<string, string>, modelBaseUrl: string): Promise<Record<string, string>> {
  const tmp = join(root, 'tmp');
  const sockets = join(root, 'h');
  for (const dir of [tmp, join(root, 'artifacts'), sockets]) await mkdir(dir, { recursive: true });
  return {
    ...baseEnv,
    TMPDIR: tmp,
    // tmux keeps its server socket in $TMUX_TMPDIR, /tmp by default.
    TMUX_TMPDIR: tmp,
    OMNIGENT_HARNESS_TMP_PARENT: sockets,
    OPENAI_API_KEY: MOCK_KEY,
    OPENAI_BASE_URL: modelBaseUrl,
    NO_COLOR: '1',
  };
}

/**
 * The real omnigent full server as the bench runs it (no host daemon): `omnigent
 * server` with its SQLite database and artifacts under the peer's root, and one
 * bare runner bound by a tunnel token, whose in-process harnesses (openai-agents)
 * reach the mock model through OPENAI_BASE_URL. The binary is the `omnigent`
 * entry point of a virtual environment; the runner is that environment's python.
 */
export const omnigentPeer: PeerSpec = {
  folder: 'openai-agents-real',
  title: 'omnigent server',
  // Harness sockets go under the root as `h/ap-<32>/conv-<32>.sock`: with /tmp/tdo-XXXXXX that is 96 of the 107 bytes a unix socket path may take.
  rootPrefix: 'tdo-',
  prepare: async (root, { modelBaseUrl, baseEnv, binary }) => {
    const env = await isolatedEnv(root, baseEnv, modelBaseUrl);
    const token = randomBytes(16).toString('hex');
    const runnerId = runnerIdFor(token);
    return serverLaunch(
      root,
      { ...env, OMNIGENT_RUNNER_TUNNEL_TOKEN: token },
      {
        companions: (url) => [
          {
            command: join(dirname(binary), 'python'),
            args: ['-m', 'omnigent.runner._entry'],
            env: { ...env, OMNIGENT_RUNNER_ID: runnerId, OMNIGENT_RUNNER_TUNNEL_BINDING_TOKEN: token, RUNNER_SERVER_URL: url },
          },
        ],
        isReady: (url) => runnerOnline(url, runnerId),
      },
    );
  },
};

/** The codex CLI the host daemon launches: $OMNIGENT_CODEX_PATH (omnigent's own setting), else the first `codex` on PATH. */
async function findCodex(): Promise<string> {
  const candidates = [
    ...(process.env.OMNIGENT_CODEX_PATH ? [process.env.OMNIGENT_CODEX_PATH] : []),
    ...(process.env.PATH ?? '')
      .split(':')
      .filter(Boolean)
      .map((dir) => join(dir, 'codex')),
  ];
  for (const candidate of candidates)
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  throw new UsageError(
    'codex-native on the real server needs the codex CLI: put codex on PATH or set OMNIGENT_CODEX_PATH=/path/to/codex (npm i -g @openai/codex)',
  );
}

/** omnigent's `providers:` config: the mock model as the default provider of the openai family (native codex among its users). */
const omnigentProviderConfig = (modelBaseUrl: string) =>
  yaml().stringify({
    providers: {
      mock: {
        kind: 'local',
        default: true,
        openai: {
          base_url: modelBaseUrl,
          api_key: MOCK_KEY,
          wire_api: 'responses',
          models: { default: MOCK_MODEL },
          // A price for the mock model, so the server can report what a turn cost (per million tokens, USD).
          pricing: { input_per_million: 1, output_per_million: 4 },
        },
      },
    },
  });

/** Whether a host is online with the codex-native harness configured (its CLI found). */
async function codexHostOnline(url: string): Promise<boolean> {
  const res = await fetch(`${url}/v1/hosts`, { headers: { origin: INTERNAL_ORIGIN } });
  if (res.status !== 200) return false;
  const { hosts } = (await res.json()) as { hosts?: { status?: string; configured_harnesses?: Record<string, unknown> }[] };
  return (hosts ?? []).some((h) => h.status === 'online' && h.configured_harnesses?.['codex-native'] === true);
}

/**
 * The seed bench's native path on the real server: `omnigent server` plus the
 * host daemon, which starts a runner per session and the real codex TUI in
 * tmux, all under the peer's root (HOME, tmux socket, harness sockets).
 * codex answers to the mock model's Responses API through its own config in
 * `$HOME/.codex`; the daemon finds it on PATH, so the root's `bin/` holds a
 * link to it.
 */
export const omnigentNativePeer: PeerSpec = {
  folder: 'codex-native-real',
  title: 'omnigent server',
  rootPrefix: 'tdn-',
  prepare: async (root, { modelBaseUrl, baseEnv, binary }) => {
    const codex = await findCodex();
    const bridgeFolderWasThere = existsSync(BRIDGE_FALLBACK);
    const env = await isolatedEnv(root, baseEnv, modelBaseUrl);
    const bin = join(root, 'bin');
    const codexHome = join(baseEnv.HOME as string, '.codex');
    for (const dir of [bin, codexHome]) await mkdir(dir, { recursive: true });
    await symlink(codex, join(bin, 'codex'));
    await writeFile(join(codexHome, 'config.toml'), codexConfigFor(modelBaseUrl));
    // omnigent picks codex's model from its own provider config, else its catalog's default (gpt-5.6-sol, for which
    // codex 0.171.0 offers the model no tools): a local provider for the openai family names the mock model.
    const configHome = join(root, 'omnigent-config');
    await mkdir(configHome, { recursive: true });
    await writeFile(join(configHome, 'config.yaml'), omnigentProviderConfig(modelBaseUrl));
    const daemonEnv = {
      ...env,
      PATH: `${bin}:${env.PATH}`,
      CODEX_HOME: codexHome,
      MOCK_API_KEY: MOCK_KEY,
      OMNIGENT_CONFIG_HOME: configHome,
    };
    return serverLaunch(root, daemonEnv, {
      companions: (url) => [
        { command: join(dirname(binary), 'python'), args: ['-m', 'omnigent.host._daemon_entry', '--server', url], env: daemonEnv },
      ],
      isReady: codexHostOnline,
      afterStop: () => reapBridgeSockets(bridgeFolderWasThere),
    });
  },
};
