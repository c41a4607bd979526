import type { z } from 'zod';
import type { Pack, ResultContext } from './pack.js';
import type { Violation, ViolationCode } from './report-types.js';
import type { CheckedEvent } from './selectors.js';

/** Makes a violation at an event index (the caller knows the cassette, interaction and excerpt). */
export type MakeViolation = (code: ViolationCode, rule: string, index: number, message: string) => Violation;

/** `what.path: message` for the first issue of a failed payload check. */
function firstIssue(what: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const path = issue?.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('') ?? '';
  return `${what}${path}: ${issue?.message ?? 'invalid'}`;
}

type Message = { id?: unknown; method?: unknown; result?: unknown };

/**
 * JSON-RPC results checked by what they answer: the method's schema, then the pack's checks that need the
 * session's earlier answers (a tool's outputSchema from tools/list). Returns a function to call on each event.
 */
function resultChecker(pack: Pack, make: MakeViolation, out: Violation[]): (e: CheckedEvent, i: number) => void {
  // Client request id -> the request, so a response's result is checked against what it answers.
  const asked = new Map<string, Message>();
  const answers = new Map<string, unknown[]>();
  const context = (request: Message): ResultContext => ({ request, earlier: (method) => answers.get(method) ?? [] });
  return (e, i) => {
    const m = e.data as Message | undefined;
    if (e.type.startsWith('client:') && typeof m?.method === 'string' && m.id !== undefined) asked.set(JSON.stringify(m.id), m);
    const request = e.type === 'response' && m?.id !== undefined ? asked.get(JSON.stringify(m.id)) : undefined;
    const method = request?.method as string | undefined;
    if (method === undefined || !('result' in (m as object))) return;
    const r = pack.results?.[method]?.safeParse(m?.result);
    if (r && !r.success) out.push(make('payload_invalid', 'payload-schema', i, firstIssue(`response to ${method} result`, r.error)));
    const problem = pack.resultChecks?.[method]?.(m?.result, context(request as Message));
    if (problem) out.push(make('payload_invalid', 'payload-schema', i, `response to ${method} result: ${problem}`));
    answers.set(method, [...(answers.get(method) ?? []), m?.result]);
  };
}

/** Every payload violation of a stream or session: each event's schema, and each result's by what it answers. */
export function payloadViolations(events: readonly CheckedEvent[], pack: Pack, make: MakeViolation): Violation[] {
  const out: Violation[] = [];
  const unknown = new Set<string>();
  const checkResult = pack.results || pack.resultChecks ? resultChecker(pack, make, out) : undefined;
  events.forEach((e, i) => {
    if (e.type === ':comment') return;
    checkResult?.(e, i);
    if (e.refused) return;
    const schema = pack.payloads[e.type];
    if (!schema) {
      if (pack.openVocabulary) return;
      if (!unknown.has(e.type))
        out.push(make('unknown_event', 'known-event-types', i, `unknown event type ${e.type}: not in ${pack.name}`));
      unknown.add(e.type);
      return;
    }
    const r = schema.safeParse(e.data);
    if (!r.success) out.push(make('payload_invalid', 'payload-schema', i, firstIssue(`${e.type} data`, r.error)));
  });
  return out;
}
