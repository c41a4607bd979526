import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MOCK_KEY } from '../../mock-model/index.js';
import type { PeerSpec } from '../family.js';
import { codexConfigFor } from '../shared/codex-config.js';

/** The real `codex app-server`, isolated by its own CODEX_HOME under the peer's root. */
export const codexPeer: PeerSpec = {
  folder: 'codex-app-server-real',
  title: 'codex app-server',
  prepare: async (root, { modelBaseUrl, baseEnv }) => {
    const codexHome = join(root, 'codex');
    await mkdir(codexHome, { recursive: true });
    await writeFile(join(codexHome, 'config.toml'), codexConfigFor(modelBaseUrl));
    return {
      args: ['app-server', '--listen', 'ws://127.0.0.1:0'],
      env: { ...baseEnv, CODEX_HOME: codexHome, MOCK_API_KEY: MOCK_KEY },
      listening: /listening on: (ws:\/\/\S+)/,
    };
  },
};
