import { UsageError } from '../errors.js';

/** How recorded time maps onto replay: no waits, real time, or real time scaled. */
export type TimingMode = { kind: 'instant' } | { kind: 'scaled'; factor: number };

/** Parses `instant`, `realtime` or `scaled:<factor>` (0.5 = twice as fast). */
export function parseTiming(value: string | TimingMode | undefined): TimingMode {
  if (value === undefined) return { kind: 'instant' };
  if (typeof value !== 'string') return value;
  if (value === 'instant') return { kind: 'instant' };
  if (value === 'realtime') return { kind: 'scaled', factor: 1 };
  const m = /^scaled:(\d+(?:\.\d+)?)$/.exec(value);
  if (m && Number(m[1]) > 0) return { kind: 'scaled', factor: Number(m[1]) };
  throw new UsageError(
    `--timing ${JSON.stringify(value)} is not a timing mode; use instant, realtime or scaled:<factor> (e.g. scaled:0.1)`,
  );
}
