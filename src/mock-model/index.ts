export type { MockAsk, MockReply, MockRule } from './script.js';
export { MOCK_KEY, MOCK_MODEL, type MockModel, type MockModelOptions, startMockModel } from './server.js';
