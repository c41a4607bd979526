export { OPENCODE_PROBE_NAMES, OPENCODE_PROBES, type OpenCodeProbe, type OpenCodeProbeName } from './probes.js';
export {
  OPENCODE_FOLDER,
  OPENCODE_PACKS,
  observeOpenCodeProbe,
  type RecordOpenCodeOptions,
  recordOpenCode,
  replayOpenCodeProbe,
} from './record-opencode.js';
