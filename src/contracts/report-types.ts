// What a verification reports, as data: renderers, the CLI and the library's callers read these.
export type ViolationCode = 'rule_broken' | 'payload_invalid' | 'unknown_event' | 'not_observed';

/** One contract violation, as data; renderers turn it into text, JSON or JUnit. */
export interface Violation {
  code: ViolationCode;
  pack: string;
  rule: string;
  cassette: string;
  /** The seq of the interaction whose stream broke the rule. */
  interaction: number;
  /** Position of the offending event in that stream (in a JSON-RPC session pack's session, its place in the session). */
  eventIndex: number;
  message: string;
  /** The events around it, the offending one marked with `>`. */
  excerpt: string[];
}

export interface CheckedCassette {
  cassette: string;
  packs: string[];
  /** Packs chosen by the cassette's traffic (it named none), each with why. */
  chosen?: { pack: string; why: string }[];
  streams: number;
  events: number;
  /**
   * Every (pack, rule) checked on this cassette, with its violations: one JUnit testcase each; and where it could
   * not be judged, on a stream cut short before the event it waits for (`notObserved`, never a failure).
   */
  rules: RuleResult[];
}

/** One rule's verdict on one stream or cassette. */
export interface RuleResult {
  pack: string;
  rule: string;
  violations: Violation[];
  notObserved: Violation[];
}

export interface VerifyReport {
  cassettes: CheckedCassette[];
  violations: Violation[];
  /** Rules that wait for a later event, on streams the client closed or a stop cut: not judged, only counted. */
  notObserved: Violation[];
}
