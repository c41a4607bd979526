export { type HermesSimulator, type HermesSimulatorOptions, SIMULATOR_API_KEY, startHermesSimulator } from './server.js';
