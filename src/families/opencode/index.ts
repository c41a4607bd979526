export { OPENCODE_FOLDER, OPENCODE_PACKS, opencodeFamily } from './family.js';
export { OPENCODE_PROBE_NAMES, OPENCODE_PROBES, type OpenCodeProbe, type OpenCodeProbeName } from './probes.js';
