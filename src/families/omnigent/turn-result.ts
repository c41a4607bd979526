import { z } from 'zod';

export const toolCallSchema = z.object({ callId: z.string(), name: z.string(), arguments: z.string() });

/** What one driven turn showed: the bench's TurnResult. */
export const turnResultSchema = z.object({
  events: z.array(z.string()),
  text: z.string(),
  textDeltaCount: z.number().int(),
  toolCalls: z.array(toolCallSchema),
  toolCallDenied: z.boolean(),
  toolCallAllowed: z.boolean(),
  elicitationRequested: z.boolean(),
  completed: z.boolean(),
  cancelled: z.boolean(),
  failed: z.boolean(),
  timedOut: z.boolean(),
  error: z.string().optional(),
  totalTokens: z.number().nullable(),
  totalCostUsd: z.number().nullable(),
});
export type TurnResult = z.infer<typeof turnResultSchema>;
export type ToolCall = z.infer<typeof toolCallSchema>;

export function emptyTurnResult(): TurnResult {
  return {
    events: [],
    text: '',
    textDeltaCount: 0,
    toolCalls: [],
    toolCallDenied: false,
    toolCallAllowed: false,
    elicitationRequested: false,
    completed: false,
    cancelled: false,
    failed: false,
    timedOut: false,
    totalTokens: null,
    totalCostUsd: null,
  };
}
