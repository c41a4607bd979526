import type { Severity } from './config.js';

export const HEADINGS = [
  'vocabulary',
  'sequence',
  'ordering',
  'values',
  'payload shape',
  'status codes',
  'stream ends',
  'contract',
  'verdict',
] as const;
export type Heading = (typeof HEADINGS)[number];

/** One thing that moved between baseline and candidate. */
export interface Finding {
  heading: Heading;
  severity: Severity;
  /** The harness (or folder) it concerns. */
  scope: string;
  subject: string;
  message: string;
  /** Old and new event sequences around an ordering change. */
  excerpt?: string[];
  /** The probes (cassette names) it was seen in, when it concerns some and not the whole harness. */
  probes?: string[];
}
