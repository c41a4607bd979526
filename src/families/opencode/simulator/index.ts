export { type OpenCodeSimulator, type OpenCodeSimulatorOptions, startOpenCodeSimulator } from './server.js';
