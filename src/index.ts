// The package root, by user task: a cassette, recording, replaying, checking, and a family of your own.
// Named one by one, so what is public is decided here; each task's subpath (tapedeck-bench/<task>) has the rest.
export {
  type Cassette,
  CassetteError,
  type Interaction,
  loadCassette,
  parseCassette,
  type RedactionConfig,
  redactCassette,
  serializeCassette,
  writeCassetteAtomic,
} from './cassette/index.js';
export { type Pack, verifyCassette, verifyPaths } from './contracts/index.js';
export { cassetteDispatcher, cassetteHandlers } from './doors/index.js';
export { TapedeckError, UsageError } from './errors.js';
export { defineFamily, type Family, families, registerFamilies } from './families/index.js';
export { loadManifest, type Manifest, type Verdict } from './manifest/index.js';
export { type RecordTargetOptions, recordTarget, replayCheck } from './probing/index.js';
export { type RecordingDispatcherOptions, recordingDispatcher, startRecordingProxy } from './recorder/index.js';
export {
  loadCassetteSet,
  type MatchOptions,
  ReplayEngine,
  type ReplayOptions,
  startReplayServer,
  UnmatchedRequestError,
} from './replayer/index.js';
