import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadOnUse } from '../../fs/load-on-use.js';
import { MOCK_KEY, MOCK_MODEL } from '../../mock-model/index.js';
import { freePort } from '../../net/listen.js';
import type { PeerSpec } from '../family.js';

// YAML is written only when a peer starts: loaded then, not by every command that reads the registry.
const yaml = loadOnUse<typeof import('yaml')>('yaml');

/** hermes-agent's config: the mock model as its custom provider; `context_length` given, so it fetches no model metadata. */
const hermesConfig = (modelBaseUrl: string) => ({
  model: { provider: 'custom', default: MOCK_MODEL, base_url: modelBaseUrl, api_key: MOCK_KEY, context_length: 100_000 },
});

/**
 * The real hermes-agent gateway's API server (`hermes gateway run`), its
 * HERMES_HOME under the peer's root, on a free 127.0.0.1 port behind a fresh
 * random key of 48 characters (the gateway wants 32 or more). It prints no
 * listening line: `/health` answering says it is up.
 */
export const hermesPeer: PeerSpec = {
  folder: 'hermes-real',
  title: 'hermes-agent gateway',
  prepare: async (root, { modelBaseUrl, baseEnv }) => {
    const home = join(root, 'hermes');
    const tmp = join(root, 'tmp');
    for (const dir of [home, tmp]) await mkdir(dir, { recursive: true });
    await writeFile(join(home, 'config.yaml'), yaml().stringify(hermesConfig(modelBaseUrl)));
    const port = await freePort();
    const apiKey = randomBytes(24).toString('hex');
    const url = `http://127.0.0.1:${port}`;
    return {
      args: ['gateway', 'run'],
      env: {
        ...baseEnv,
        HERMES_HOME: home,
        TMPDIR: tmp,
        API_SERVER_ENABLED: 'true',
        API_SERVER_KEY: apiKey,
        API_SERVER_HOST: '127.0.0.1',
        API_SERVER_PORT: String(port),
      },
      url,
      apiKey,
      isReady: async () => (await fetch(`${url}/health`)).ok,
    };
  },
};
