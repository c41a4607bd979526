export { variationArbitrary } from './arbitraries.js';
export { FuzzError, type FuzzErrorCode } from './errors.js';
export {
  counterexampleReplayOptions,
  exploreCassette,
  type FuzzCase,
  type FuzzCounterexample,
  type FuzzOptions,
  type FuzzProperty,
  type FuzzReport,
  formatCounterexample,
  fuzzCassette,
  newSeed,
} from './fuzz-cassette.js';
export { type ClientFuzzOptions, type ClientFuzzRow, fuzzClient } from './fuzz-client.js';
export { fuzzProbes, type ProbeFuzzOptions, type ProbeFuzzRow } from './fuzz-probes.js';
export { keysOf } from './key-order.js';
export { labelOf } from './labels.js';
export { violationsOf } from './legality.js';
export { transportReframing } from './transport.js';
export {
  applyVariation,
  type Edit,
  type Transport,
  type Variation,
  type VariationSpace,
  variationSchema,
  variationSpace,
} from './variation.js';
