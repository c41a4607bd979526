import { z } from 'zod';

/** The bench's verdict vocabulary (not pass/fail). */
export const verdictSchema = z.enum(['SUPPORTED', 'UNSUPPORTED', 'PARTIAL', 'NOT_APPLICABLE', 'UNKNOWN', 'SKIPPED', 'DRIFT']);
export type Verdict = z.infer<typeof verdictSchema>;

export const VERDICT_SYMBOL: Record<Verdict, string> = {
  SUPPORTED: '✓',
  UNSUPPORTED: '✗',
  PARTIAL: '~',
  NOT_APPLICABLE: '—',
  UNKNOWN: '?',
  SKIPPED: '·',
  DRIFT: '!!',
};

const CONCRETE = new Set<Verdict>(['SUPPORTED', 'UNSUPPORTED', 'PARTIAL', 'NOT_APPLICABLE']);

/** DRIFT when observed and declared are both concrete and differ; otherwise what was observed. */
export function reconcile(observed: Verdict, declared: Verdict | undefined): Verdict {
  if (declared && CONCRETE.has(observed) && CONCRETE.has(declared) && observed !== declared) return 'DRIFT';
  return observed;
}
