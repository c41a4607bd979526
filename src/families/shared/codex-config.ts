import { MOCK_MODEL } from '../../mock-model/index.js';

/**
 * codex's config.toml (reference §6) that points it at the mock model,
 * wherever codex runs: the app-server peer, or the TUI omnigent's host daemon
 * launches. The Responses wire API, no OpenAI login, commands unsandboxed;
 * the key is read from $MOCK_API_KEY.
 */
export const codexConfigFor = (modelBaseUrl: string): string =>
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
