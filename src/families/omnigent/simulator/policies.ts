/** The CEL handler the bench attaches; the only one the simulator evaluates. */
export const CEL_HANDLER = 'omnigent.policies.builtins.cel.cel_policy';

export interface PolicyDecision {
  result: 'ALLOW' | 'DENY' | 'ASK';
  reason?: string;
}

export interface CompiledPolicy {
  evaluate(eventType: string): PolicyDecision;
}

// The bench's form: event.type == "tool_call" ? {...} : {...}
const TERNARY = /^\s*event\.type\s*==\s*"([a-z_]+)"\s*\?\s*(\{[^{}]*\})\s*:\s*(\{[^{}]*\})\s*$/;

function decision(text: string): PolicyDecision | undefined {
  try {
    const value = JSON.parse(text) as PolicyDecision;
    return ['ALLOW', 'DENY', 'ASK'].includes(value.result) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Compiles the supported CEL subset, or returns why it cannot. */
export function compileCel(expression: string): CompiledPolicy | string {
  const m = TERNARY.exec(expression);
  const then = m?.[2] ? decision(m[2]) : undefined;
  const otherwise = m?.[3] ? decision(m[3]) : undefined;
  if (!m || !then || !otherwise) {
    return 'the simulator evaluates CEL of the form event.type == "<type>" ? {"result": ...} : {"result": ...}';
  }
  return { evaluate: (eventType) => (eventType === m[1] ? then : otherwise) };
}
