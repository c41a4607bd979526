import type { Verdict } from './verdict.js';

/** What a suite probe concludes: a verdict and why. */
export interface SuiteObservation {
  observed: Verdict;
  note: string;
}

export const supported = (note: string): SuiteObservation => ({ observed: 'SUPPORTED', note });
export const unsupported = (note: string): SuiteObservation => ({ observed: 'UNSUPPORTED', note });
