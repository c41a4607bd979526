import safeRegex from 'safe-regex2';

/**
 * Why a redaction pattern is refused, or undefined when it is not: a
 * quantifier inside a quantified group (`(a+)+`) backtracks exponentially, and
 * a save runs every pattern over every string it writes. The check is
 * safe-regex2's (fastify), by star height: it does not see overlapping
 * alternatives (`(a|aa)+`).
 */
export function backtrackingRisk(pattern: string): string | undefined {
  let valid = true;
  try {
    new RegExp(pattern);
  } catch {
    valid = false;
  }
  // An invalid pattern is refused elsewhere, with that reason.
  if (!valid || safeRegex(pattern)) return undefined;
  return 'nests one repetition inside another, which can take exponential time on a string that almost matches (a 27-character one took 6 s); rewrite it without the nested quantifier, e.g. (a+)+ as a+';
}
