// The `tapedeck-bench/simulators` entry point: every family's simulator and the mock model, for tests that want a server to talk to.
export { type CodexSimulator, type CodexSimulatorOptions, startCodexSimulator } from './families/codex/simulator/index.js';
export {
  type HermesSimulator,
  type HermesSimulatorOptions,
  SIMULATOR_API_KEY,
  startHermesSimulator,
} from './families/hermes/simulator/index.js';
export { type OmnigentSimulator, type OmnigentSimulatorOptions, startOmnigentSimulator } from './families/omnigent/simulator/index.js';
export { type OpenCodeSimulator, type OpenCodeSimulatorOptions, startOpenCodeSimulator } from './families/opencode/simulator/index.js';
export { MOCK_MODEL, type MockModel, type MockModelOptions, startMockModel } from './mock-model/index.js';
