export { MOCK_MODEL, type MockModel, type MockModelOptions, startMockModel } from './server.js';
