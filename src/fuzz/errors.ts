import { TapedeckError } from '../errors.js';

export type FuzzErrorCode = 'no_packs' | 'cassette_breaks_packs' | 'property_failed';

/** A fuzzing problem: bad input (exit 2) or a property broken by a legal variation (exit 1). */
export class FuzzError extends TapedeckError {
  declare readonly code: FuzzErrorCode;

  constructor(code: FuzzErrorCode, message: string) {
    super(code, message, { exitCode: code === 'property_failed' ? 1 : 2 });
  }
}
