import { type RequestShape, stableKey } from './match-request.js';

export type Difference = { path: string; recorded: unknown; actual: unknown };

/** Where two values first differ, as a field path with both values; undefined when equal. */
export function firstDifference(recorded: unknown, actual: unknown, path: string): Difference | undefined {
  return leafDifferences(recorded, actual, path, 1)[0];
}

/** Every field where two values differ (up to `limit`), in key order: the count ranks near misses. */
function leafDifferences(recorded: unknown, actual: unknown, path: string, limit: number, out: Difference[] = []): Difference[] {
  if (out.length >= limit || stableKey(recorded) === stableKey(actual)) return out;
  const bothObjects = recorded && actual && typeof recorded === 'object' && typeof actual === 'object';
  if (bothObjects && Array.isArray(recorded) === Array.isArray(actual)) {
    for (const k of new Set([...Object.keys(recorded), ...Object.keys(actual)])) {
      const sub = Array.isArray(recorded) ? `${path}[${k}]` : `${path}.${k}`;
      leafDifferences((recorded as Record<string, unknown>)[k], (actual as Record<string, unknown>)[k], sub, limit, out);
    }
    return out;
  }
  out.push({ path, recorded, actual });
  return out;
}

// Enough body fields to rank two near misses by how much of the body differs, few enough to stay cheap.
const BODY_DIFFERENCES = 8;

/** How many body fields differ (up to a few): what ranks two near misses that differ in as many places. */
export const bodyDistance = (recorded: RequestShape, actual: RequestShape): number =>
  leafDifferences(recorded.body, actual.body, 'body', BODY_DIFFERENCES).length;

/** The differences between a recorded shape and a live one, most significant first. */
export function differences(recorded: RequestShape, actual: RequestShape): Difference[] {
  const out: Difference[] = [];
  if (recorded.method !== actual.method) out.push({ path: 'method', recorded: recorded.method, actual: actual.method });
  const rs = recorded.pathname.split('/');
  const as = actual.pathname.split('/');
  for (let i = 0; i < Math.max(rs.length, as.length); i++) {
    if (rs[i] !== as[i]) out.push({ path: `path segment ${i}`, recorded: rs[i] ?? '(none)', actual: as[i] ?? '(none)' });
  }
  const q = firstDifference(Object.fromEntries(recorded.query), Object.fromEntries(actual.query), 'query');
  if (q) out.push(q);
  const b = firstDifference(recorded.body, actual.body, 'body');
  if (b) out.push(b);
  const h = firstDifference(Object.fromEntries(recorded.headers), Object.fromEntries(actual.headers), 'headers');
  if (h) out.push(h);
  return out;
}
