export * from './cassette/index.js';
export { TapedeckError, UsageError } from './errors.js';
export { findHarness, HARNESS_PROFILES, type HarnessProfile } from './harnesses/index.js';
export { type Manifest, recordHarness, replayCheck, SessionDriver, type Verdict } from './probes/index.js';
export { startRecordingProxy } from './recorder/index.js';
export * from './replayer/index.js';
export { startOmnigentSimulator } from './simulator/omnigent/index.js';
export { parseSseText, SseParser, serializeSseFrame } from './sse/index.js';
