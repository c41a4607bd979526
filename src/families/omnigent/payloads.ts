import { z } from 'zod';

// Fields a server adds pass; what a pack relies on is checked. z.object accepts unknown keys (it only strips them
// from a parse output nobody reads here) and checks several times faster than z.looseObject, which has no compiled
// fast path; a refine that reads an undeclared field would need looseObject (the codex and opencode packs have some).
const seq = z.number().int().nullable();
const base = (type: string) => ({ type: z.literal(type), sequence_number: seq });
const responseObject = z.object({ id: z.string(), status: z.string(), model: z.string().optional() });
/**
 * A finished output item carries what its type means: a tool call its id, name and arguments, a tool's output the
 * output (the real full server writes a policy denial there), a message its role and content. A variation that
 * drops one of these is not one the server sends, so the fuzzer may not try it.
 */
const ITEM_TYPES = ['function_call', 'function_call_output', 'message'];
const item = z.union([
  z.object({ id: z.string(), type: z.literal('function_call'), call_id: z.string(), name: z.string(), arguments: z.string() }),
  z.object({
    id: z.string(),
    type: z.literal('function_call_output'),
    call_id: z.string(),
    output: z.union([z.string(), z.array(z.unknown())]),
  }),
  z.object({ id: z.string(), type: z.literal('message'), role: z.string(), content: z.array(z.unknown()) }),
  z.object({ id: z.string(), type: z.string().refine((t) => !ITEM_TYPES.includes(t)) }),
]);

/** The omnigent session stream's payloads, per event type (`ServerStreamEvent`). */
export const omnigentPayloads: Record<string, z.ZodType> = {
  'session.heartbeat': z.object({ ...base('session.heartbeat'), server_time: z.string().nullable().optional() }),
  'session.status': z.object({
    ...base('session.status'),
    conversation_id: z.string(),
    status: z.enum(['idle', 'launching', 'running', 'waiting', 'failed']),
  }),
  'session.input.consumed': z.object({
    ...base('session.input.consumed'),
    data: z.object({ item_id: z.string(), type: z.string() }),
  }),
  'session.interrupted': z.object({
    ...base('session.interrupted'),
    data: z.object({ requested_at: z.number(), response_id: z.string().nullable() }),
  }),
  'session.usage': z.object({
    ...base('session.usage'),
    conversation_id: z.string(),
    total_cost_usd: z.number().nullable().optional(),
  }),
  'session.terminal.activity': z.object({ ...base('session.terminal.activity'), session_id: z.string() }),
  'session.resource.created': z.object({
    ...base('session.resource.created'),
    resource: z.object({ id: z.string(), type: z.string() }),
  }),
  'session.changed_files.invalidated': z.object({
    ...base('session.changed_files.invalidated'),
    session_id: z.string(),
    environment_id: z.string(),
  }),
  'session.presence': z.object({ ...base('session.presence'), conversation_id: z.string(), viewers: z.array(z.unknown()) }),
  // Sent by the real full server (0.19.1) after a turn's output; in the reference's list, not in our first vocabulary.
  'session.model': z.object({ ...base('session.model'), conversation_id: z.string(), model: z.string() }),
  // Sent by the real server (0.19.1) on a codex-native session as the TUI comes up; the reference lists the last two.
  'session.codex_approval_mode': z.object({ ...base('session.codex_approval_mode') }),
  'session.mcp_startup': z.object({ ...base('session.mcp_startup') }),
  'session.model_options': z.object({ ...base('session.model_options') }),
  'response.in_progress': z.object({ ...base('response.in_progress'), response: responseObject }),
  'response.completed': z.object({ ...base('response.completed'), response: responseObject }),
  'response.failed': z.object({ ...base('response.failed') }),
  'response.cancelled': z.object({ ...base('response.cancelled'), response: responseObject }),
  'response.output_text.delta': z.object({ ...base('response.output_text.delta'), delta: z.string() }),
  'response.output_item.done': z.object({ ...base('response.output_item.done'), item }),
  'response.policy_denied': z.object({
    ...base('response.policy_denied'),
    conversation_id: z.string(),
    reason: z.string(),
    phase: z.string(),
  }),
  'response.elicitation_request': z.object({
    ...base('response.elicitation_request'),
    elicitation_id: z.string(),
    method: z.literal('elicitation/create'),
    params: z.object({ mode: z.enum(['form', 'url']), message: z.string() }),
  }),
  'response.elicitation_resolved': z.object({ ...base('response.elicitation_resolved'), elicitation_id: z.string() }),
  'response.error': z.object({ ...base('response.error'), error: z.object({ code: z.string(), message: z.string() }) }),
  'response.heartbeat': z.object({ ...base('response.heartbeat') }),
  '[DONE]': z.literal('[DONE]'),
};
