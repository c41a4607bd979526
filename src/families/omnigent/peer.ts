import { createHash, randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MOCK_KEY } from '../../mock-model/index.js';
import { freePort } from '../../net/listen.js';
import type { PeerSpec } from '../../suite/index.js';
import { INTERNAL_ORIGIN } from './session-client.js';

/** The runner id a tunnel binding token authorises, as the server derives it (`token_bound_runner_id`). */
export const runnerIdFor = (token: string) =>
  `runner_token_${createHash('sha256').update(`omnigent-runner:${token}`).digest('hex').slice(0, 32)}`;

/** Whether the server answers and reports `runnerId` online. */
async function runnerOnline(url: string, runnerId: string): Promise<boolean> {
  const res = await fetch(`${url}/v1/runners/${runnerId}/status`, { headers: { origin: INTERNAL_ORIGIN } });
  return res.status === 200 && ((await res.json()) as { online?: unknown }).online === true;
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
    const tmp = join(root, 'tmp');
    const artifacts = join(root, 'artifacts');
    // Harness sockets live here; omnigent's default is /tmp/omnigent-<uid>, outside the root.
    const sockets = join(root, 'h');
    for (const dir of [tmp, artifacts, sockets]) await mkdir(dir, { recursive: true });
    const token = randomBytes(16).toString('hex');
    const runnerId = runnerIdFor(token);
    // Everything the server and runner write (harness instances, logs) stays under the root.
    const env = {
      ...baseEnv,
      TMPDIR: tmp,
      OMNIGENT_HARNESS_TMP_PARENT: sockets,
      OPENAI_API_KEY: MOCK_KEY,
      OPENAI_BASE_URL: modelBaseUrl,
      NO_COLOR: '1',
    };
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
        artifacts,
      ],
      env: { ...env, OMNIGENT_RUNNER_TUNNEL_TOKEN: token },
      listening: /Starting omnigent server on (\S+:\d+)/,
      urlOf: (hostPort) => `http://${hostPort}`,
      companions: (url) => [
        {
          command: join(dirname(binary), 'python'),
          args: ['-m', 'omnigent.runner._entry'],
          env: { ...env, OMNIGENT_RUNNER_ID: runnerId, OMNIGENT_RUNNER_TUNNEL_BINDING_TOKEN: token, RUNNER_SERVER_URL: url },
        },
      ],
      isReady: (url) => runnerOnline(url, runnerId),
    };
  },
};
