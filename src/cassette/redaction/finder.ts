import { type SecretFinding, type SecretRuleSet, secretRules } from './secret-rules.js';

/** The secret rules of a configuration (the gitleaks set and its patterns), with what they find in short texts remembered. */
export class ShapeFinder {
  private readonly rules: SecretRuleSet;
  // Header values repeat on every request (user-agent, accept, host): a short text is searched once.
  private readonly short = new Map<string, readonly SecretFinding[]>();

  constructor(patterns: readonly string[]) {
    this.rules = secretRules(patterns);
  }

  /** Every finding in a text, searched afresh. */
  find(text: string): SecretFinding[] {
    return this.rules.find(text);
  }

  /** Every finding in a text; a short one's are looked up once. */
  findingsOf(text: string): readonly SecretFinding[] {
    if (text.length > 512) return this.rules.find(text);
    let findings = this.short.get(text);
    if (!findings) {
      findings = this.rules.find(text);
      // Kept for the latest texts, not the first 10,000: a text is learnt and then scrubbed soon after, all recording long.
      if (this.short.size >= 10_000) this.short.clear();
      this.short.set(text, findings);
    }
    return findings;
  }
}
