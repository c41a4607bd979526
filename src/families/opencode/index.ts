export { OPENCODE_PROBE_NAMES, OPENCODE_PROBES, type OpenCodeProbe, type OpenCodeProbeName } from './probes.js';
export { OPENCODE_FOLDER, OPENCODE_PACKS, opencodeSuite } from './suite.js';
