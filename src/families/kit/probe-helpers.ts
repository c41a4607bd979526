import { UsageError } from '../../errors.js';
import type { SuiteObservation, Verdict } from '../../manifest/index.js';
import { isInfrastructure } from './errors.js';

/**
 * Runs a probe. Infrastructure trouble (the server down, an HTTP error where
 * the probe needed an answer, provisioning that never finished) is SKIPPED with
 * the reason; any other failure is UNKNOWN: never a capability verdict.
 */
export async function observeSafely(run: () => Promise<SuiteObservation>): Promise<{ observed: Verdict; reason: string }> {
  try {
    const { observed, note } = await run();
    return { observed, reason: note };
  } catch (err) {
    const message = (err as Error).message;
    return isInfrastructure(err) ? { observed: 'SKIPPED', reason: message } : { observed: 'UNKNOWN', reason: `probe error: ${message}` };
  }
}

/** The probe named `name`, or a usage error naming the known ones. */
export function findProbe<P extends { name: string }>(all: readonly P[], name: string, what: string): P {
  const probe = all.find((p) => p.name === name);
  if (!probe) throw new UsageError(`unknown ${what} probe ${JSON.stringify(name)}; probes: ${all.map((p) => p.name).join(', ')}`);
  return probe;
}

/** The probes named in `names` (all when absent), or a usage error naming the known ones. */
export function selectNamed<P extends { name: string }>(
  all: readonly P[],
  names: readonly string[] | undefined,
  what: string,
): readonly P[] {
  if (!names) return all;
  for (const n of names) findProbe(all, n, what);
  return all.filter((p) => names.includes(p.name));
}

/** The Authorization header of a bearer key, or none without a key. */
export const bearer = (apiKey: string | undefined): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {});
