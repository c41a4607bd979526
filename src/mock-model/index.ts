export { MOCK_KEY, MOCK_MODEL, type MockModel, type MockModelOptions, startMockModel } from './server.js';
