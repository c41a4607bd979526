export {
  DEFAULT_SUITE,
  loadManifest,
  type Manifest,
  manifestSchema,
  type ProbeResult,
  probeResultSchema,
  writeManifest,
} from './manifest.js';
export { type SuiteObservation, supported, unsupported } from './observation.js';
export { reconcile, VERDICT_SYMBOL, type Verdict, verdictSchema } from './verdict.js';
