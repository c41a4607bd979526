export { type DriverTimings, LIVE_TIMINGS, SessionDriver } from './driver.js';
export { ProvisioningError, ServerResponseError } from './errors.js';
export { loadManifest, type Manifest, manifestSchema, type ProbeResult } from './manifest.js';
export { markerFor, PROBE_NAMES, PROBES, type Probe, type ProbeName } from './probes.js';
export {
  NATIVE_TUI_PACKS,
  observeProbe,
  type RecordOptions,
  recordableHarness,
  recordHarness,
  SIMULATOR_TIMINGS,
} from './record-harness.js';
export {
  cassetteFetch,
  REPLAY_ORIGIN,
  REPLAY_TIMINGS,
  type RecordedProbe,
  type ReplayCheckRow,
  type ReplayDoor,
  recordedProbes,
  replayCheck,
  replayProbe,
} from './replay-check.js';
export type { FetchLike } from './session-client.js';
export { emptyTurnResult, type TurnResult, turnResultSchema } from './turn-result.js';
export { reconcile, VERDICT_SYMBOL, type Verdict, verdictSchema } from './verdict.js';
