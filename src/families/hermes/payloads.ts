import { z } from 'zod';

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
