import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MOCK_KEY, MOCK_MODEL } from '../../mock-model/index.js';
import type { PeerSpec } from '../../suite/index.js';

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

/** The real `codex app-server`, isolated by its own CODEX_HOME under the peer's root. */
export const codexPeer: PeerSpec = {
  folder: 'codex-app-server-real',
  title: 'codex app-server',
  prepare: async (root, { modelBaseUrl, baseEnv }) => {
    const codexHome = join(root, 'codex');
    await mkdir(codexHome, { recursive: true });
    await writeFile(join(codexHome, 'config.toml'), codexConfig(modelBaseUrl));
    return {
      args: ['app-server', '--listen', 'ws://127.0.0.1:0'],
      env: { ...baseEnv, CODEX_HOME: codexHome, MOCK_API_KEY: MOCK_KEY },
      listening: /listening on: (ws:\/\/\S+)/,
    };
  },
};
