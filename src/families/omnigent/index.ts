export { type DriverTimings, LIVE_TIMINGS, SessionDriver } from './driver.js';
export { ProvisioningError, ServerResponseError } from './errors.js';
export {
  FUZZ_TIMINGS,
  NATIVE_TUI_PACKS,
  observeProbe,
  omnigentFamily,
  REPLAY_TIMINGS,
  recordableHarness,
  SIMULATOR_TIMINGS,
} from './family.js';
export { findHarness, HARNESS_PROFILES, type HarnessProfile, harnessProfileSchema, recordableHarnessIds } from './harnesses.js';
export { markerFor, PROBE_NAMES, PROBES, type Probe, type ProbeName } from './probes.js';
export { INTERNAL_ORIGIN, openSessionStream } from './session-client.js';
export { emptyTurnResult, type TurnResult, turnResultSchema } from './turn-result.js';
