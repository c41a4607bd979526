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

/** Hermes session chat stream payloads: every one stamped with session_id, run_id (`run_<hex32>`) and seq. */
const stamped = {
  session_id: z.string(),
  run_id: z.string().regex(/^run_[0-9a-f]{32}$/),
  seq: z.number().int().positive(),
  ts: z.number(),
};
// The real 0.19.0 gateway sends no tool_call_id (newer builds add it) and a null preview on tool.completed.
const tool = {
  message_id: z.string(),
  tool_name: z.string(),
  preview: z.string().max(120).nullable(),
  args: z.unknown(),
  tool_call_id: z.string().optional(),
};
const session = (fields: z.ZodRawShape = {}) => z.object({ ...stamped, ...fields });
export const hermesSessionPayloads: Record<string, z.ZodType> = {
  'run.started': session({ user_message: z.object({ role: z.literal('user'), content: z.unknown() }) }),
  'message.started': session({ message: z.object({ id: z.string(), role: z.literal('assistant') }) }),
  'assistant.delta': session({ message_id: z.string(), delta: z.string() }),
  'reasoning.delta': session({ message_id: z.string(), delta: z.string() }),
  'tool.progress': session({ message_id: z.string(), tool_name: z.string(), delta: z.string() }),
  'tool.started': session(tool),
  'tool.completed': session(tool),
  'tool.failed': session(tool),
  'assistant.commentary': session({ message_id: z.string(), text: z.string() }),
  'approval.request': session({ message_id: z.string(), choices: z.array(z.string()) }),
  'clarify.request': session({ prompt_id: z.string(), question: z.string(), execution_generation: z.number().int() }),
  'clarify.settled': session({ prompt_id: z.string() }),
  'approval.settled': session({ prompt_id: z.string(), choice: z.string() }),
  'assistant.completed': session({ message_id: z.string(), content: z.string() }),
  'run.completed': session({ message_id: z.string(), messages: z.array(z.unknown()), usage: z.unknown() }),
  'run.cancelled': session({ message_id: z.string(), messages: z.array(z.unknown()) }),
  'run.failed': session({ message_id: z.string(), messages: z.array(z.unknown()) }),
  error: session({ message: z.string() }),
  'run.queued': session({ status: z.string(), delivery_id: z.string() }),
  done: session(),
};

/** /v1/runs/{id}/events payloads: the name in `event`, every one with run_id and a timestamp in seconds. */
const run = (event: string, fields: z.ZodRawShape = {}) =>
  z.object({ event: z.literal(event), run_id: z.string(), timestamp: z.number(), ...fields });
export const hermesRunPayloads: Record<string, z.ZodType> = {
  'message.delta': run('message.delta', { delta: z.string() }),
  'reasoning.available': run('reasoning.available', { text: z.string() }),
  'reasoning.delta': run('reasoning.delta', { text: z.string() }),
  'tool.started': run('tool.started', { tool: z.string(), preview: z.string().nullable() }),
  'tool.completed': run('tool.completed', { tool: z.string(), duration: z.number(), error: z.boolean() }),
  'approval.request': run('approval.request', { choices: z.array(z.string()) }),
  'approval.responded': run('approval.responded', { choice: z.string() }),
  'clarify.request': run('clarify.request', { question: z.string() }),
  'clarify.retired': run('clarify.retired', {}),
  'run.steered': run('run.steered', { accepted: z.boolean() }),
  'run.completed': run('run.completed', { output: z.string(), usage: z.unknown() }),
  'run.failed': run('run.failed', { error: z.unknown() }),
  'run.cancelled': run('run.cancelled'),
};

/** Responses stream payloads: `type` and a `sequence_number` on every event. */
const numbered = (type: string, fields: z.ZodRawShape = {}) =>
  z.object({ type: z.literal(type), sequence_number: z.number().int().nonnegative(), ...fields });
const responseEnvelope = z.object({ id: z.string(), status: z.string(), output: z.array(z.unknown()).optional() });
const outputItem = z.object({ id: z.string(), type: z.string() });
const textPosition = { item_id: z.string(), output_index: z.number().int(), content_index: z.number().int() };
export const responsesPayloads: Record<string, z.ZodType> = {
  'response.created': numbered('response.created', { response: responseEnvelope }),
  'response.in_progress': numbered('response.in_progress', { response: responseEnvelope }),
  'response.output_item.added': numbered('response.output_item.added', { output_index: z.number().int(), item: outputItem }),
  'response.output_item.done': numbered('response.output_item.done', { output_index: z.number().int(), item: outputItem }),
  'response.content_part.added': numbered('response.content_part.added', textPosition),
  'response.content_part.done': numbered('response.content_part.done', textPosition),
  'response.output_text.delta': numbered('response.output_text.delta', { ...textPosition, delta: z.string() }),
  'response.output_text.done': numbered('response.output_text.done', { ...textPosition, text: z.string() }),
  'response.function_call_arguments.delta': numbered('response.function_call_arguments.delta', { item_id: z.string(), delta: z.string() }),
  'response.function_call_arguments.done': numbered('response.function_call_arguments.done', {
    item_id: z.string(),
    arguments: z.string(),
  }),
  'response.reasoning_text.delta': numbered('response.reasoning_text.delta', { item_id: z.string(), delta: z.string() }),
  'response.reasoning_summary_text.delta': numbered('response.reasoning_summary_text.delta', { item_id: z.string(), delta: z.string() }),
  'response.completed': numbered('response.completed', { response: responseEnvelope }),
  'response.incomplete': numbered('response.incomplete', { response: responseEnvelope }),
  'response.failed': numbered('response.failed', {
    response: responseEnvelope.extend({ error: z.object({ message: z.string(), type: z.string() }) }),
  }),
};

/** Chat completion chunks (named `chat.completion.chunk` by their `object`), Hermes's tool progress frames, and `[DONE]`. */
export const chatChunkPayloads: Record<string, z.ZodType> = {
  'chat.completion.chunk': z.object({
    id: z.string(),
    object: z.literal('chat.completion.chunk'),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        delta: z.object({
          role: z.string().optional(),
          content: z.string().nullable().optional(),
          reasoning_content: z.string().optional(),
        }),
        finish_reason: z.enum(['stop', 'length', 'error', 'tool_calls', 'content_filter']).nullable(),
      }),
    ),
  }),
  'hermes.tool.progress': z.object({ tool: z.string(), toolCallId: z.string(), status: z.enum(['running', 'completed']) }),
  '[DONE]': z.literal('[DONE]'),
};
