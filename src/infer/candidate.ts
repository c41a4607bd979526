import type { Rule } from '../contracts/index.js';

/** A rule inference proposes, with its evidence: how often the recordings put it to the test, and where first. */
export interface Candidate {
  rule: Rule;
  /** Times the rule was put to the test: streams, turns, keys or events, as its kind counts them. */
  support: number;
  /** What `support` counts, for the evidence comment: `streams`, `turns`, `keys`, `texts`. */
  unit: string;
  /** The streams it was tested on. */
  streams: number;
  /** `recording #seq` of the first stream that shows it. */
  first: string;
}

/** A rule's fields but its name (given once every rule is known, so names are unique). */
export type RuleBody = Rule extends infer R ? (R extends Rule ? Omit<R, 'name' | 'source'> : never) : never;

const SOURCE = 'bench infer';

/** A candidate with a placeholder name: names are given when the pack is written. */
export function candidate(body: RuleBody, evidence: Omit<Candidate, 'rule'>): Candidate {
  return { rule: { ...body, name: 'unnamed', source: SOURCE } as Rule, ...evidence };
}
