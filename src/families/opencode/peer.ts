import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MOCK_KEY, MOCK_MODEL } from '../../mock-model/index.js';
import { freePort } from '../../net/listen.js';
import type { PeerSpec } from '../family.js';

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

/** The real `opencode serve`, isolated by XDG folders under the peer's root. */
export const opencodePeer: PeerSpec = {
  folder: 'opencode-serve-real',
  title: 'opencode serve',
  prepare: async (root, { modelBaseUrl, baseEnv }) => {
    const xdg = Object.fromEntries(
      ['DATA', 'CONFIG', 'CACHE', 'STATE'].map((k) => [`XDG_${k}_HOME`, join(root, 'xdg', k.toLowerCase())] as const),
    );
    for (const dir of Object.values(xdg)) await mkdir(dir, { recursive: true });
    await mkdir(join(xdg.XDG_CONFIG_HOME as string, 'opencode'), { recursive: true });
    await writeFile(
      join(xdg.XDG_CONFIG_HOME as string, 'opencode', 'opencode.json'),
      JSON.stringify(opencodeConfig(modelBaseUrl), null, 2),
    );
    // opencode reads `--port 0` as 4096, so it gets a port known to be free.
    const port = await freePort();
    return {
      // --pure: no external plugins, so the first boot installs nothing from the registry.
      args: ['serve', '--port', String(port), '--hostname', '127.0.0.1', '--pure'],
      env: {
        ...baseEnv,
        ...xdg,
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      },
      listening: /listening on (http:\/\/\S+)/,
    };
  },
};
