import type { Verdict } from './verdict.js';

// A leaf module: probe suites import it, and the manifest imports their probe names, so nothing here may import them back.

/** What a suite probe concludes: a verdict and why. */
export interface SuiteObservation {
  observed: Verdict;
  note: string;
}

export const supported = (note: string): SuiteObservation => ({ observed: 'SUPPORTED', note });
export const unsupported = (note: string): SuiteObservation => ({ observed: 'UNSUPPORTED', note });
