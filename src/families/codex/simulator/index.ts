export { type CodexSimulator, type CodexSimulatorOptions, startCodexSimulator } from './server.js';
