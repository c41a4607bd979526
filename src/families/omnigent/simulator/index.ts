export { type OmnigentSimulator, type OmnigentSimulatorOptions, startOmnigentSimulator } from './server.js';
