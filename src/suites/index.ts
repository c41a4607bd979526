export { peerSpecFor, type RecordTargetOptions, recordTarget } from './record.js';
export { SUITES, suiteForTarget, suiteOfManifest, TARGETS } from './registry.js';
export { type RecordedProbe, type ReplayCheckRow, recordedProbes, replayCheck } from './replay-check.js';
