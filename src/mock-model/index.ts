export { codexConfigFor } from './codex-config.js';
export { MOCK_KEY, MOCK_MODEL, type MockModel, type MockModelOptions, startMockModel } from './server.js';
