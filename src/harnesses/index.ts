export { findHarness, HARNESS_PROFILES, type HarnessProfile, harnessProfileSchema, recordableHarnessIds } from './profiles.js';
