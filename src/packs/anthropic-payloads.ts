import { z } from 'zod';

// @anthropic-ai/sdk publishes its stream events as TypeScript types only (no runtime schema), so these follow its
// `RawMessageStreamEvent` union field by field: required where the SDK's MessageStream reads the field, open
// (`looseObject`) where the API documents that it adds fields.

const usage = z.looseObject({ input_tokens: z.number().int().nonnegative(), output_tokens: z.number().int().nonnegative() });
const stopReason = z.enum([
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
]);

const message = z.looseObject({
  id: z.string().min(1),
  type: z.literal('message'),
  role: z.literal('assistant'),
  content: z.array(z.unknown()),
  model: z.string(),
  stop_reason: stopReason.nullable(),
  stop_sequence: z.string().nullable().optional(),
  usage,
});

const KNOWN_BLOCKS = ['text', 'tool_use', 'server_tool_use', 'thinking', 'redacted_thinking'];
const contentBlock = z.union([
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.enum(['tool_use', 'server_tool_use']), id: z.string().min(1), name: z.string().min(1), input: z.unknown() }),
  z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() }),
  z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() }),
  // Server tool results and container blocks: many kinds, each with a type of its own.
  z.looseObject({ type: z.string().refine((t) => !KNOWN_BLOCKS.includes(t), 'a block of a known type lacks its fields') }),
]);

const delta = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text_delta'), text: z.string() }),
  z.looseObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
  z.looseObject({ type: z.literal('thinking_delta'), thinking: z.string() }),
  z.looseObject({ type: z.literal('signature_delta'), signature: z.string() }),
  z.looseObject({ type: z.literal('citations_delta'), citation: z.looseObject({ type: z.string() }) }),
]);

const index = z.number().int().nonnegative();

/** A payload schema per event type of the Messages stream, keyed by the SSE event name (which the data's `type` repeats). */
export const anthropicPayloads: Record<string, z.ZodType> = {
  message_start: z.looseObject({ type: z.literal('message_start'), message }),
  content_block_start: z.looseObject({ type: z.literal('content_block_start'), index, content_block: contentBlock }),
  content_block_delta: z.looseObject({ type: z.literal('content_block_delta'), index, delta }),
  content_block_stop: z.looseObject({ type: z.literal('content_block_stop'), index }),
  message_delta: z.looseObject({
    type: z.literal('message_delta'),
    delta: z.looseObject({ stop_reason: stopReason.nullable(), stop_sequence: z.string().nullable().optional() }),
    usage: z.looseObject({ output_tokens: z.number().int().nonnegative() }),
  }),
  message_stop: z.looseObject({ type: z.literal('message_stop') }),
  ping: z.looseObject({ type: z.literal('ping') }),
  error: z.looseObject({ type: z.literal('error'), error: z.looseObject({ type: z.string().min(1), message: z.string() }) }),
};
