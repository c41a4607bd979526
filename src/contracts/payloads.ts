import { z } from 'zod';

// Payloads keep unknown fields (servers add them); what a pack relies on is checked.
const seq = z.number().int().nullable();
const base = (type: string) => ({ type: z.literal(type), sequence_number: seq });
const responseObject = z.looseObject({ id: z.string(), status: z.string(), model: z.string().optional() });
const item = z.looseObject({ id: z.string(), type: z.string() });

/** The omnigent session stream's payloads, per event type (`ServerStreamEvent`). */
export const omnigentPayloads: Record<string, z.ZodType> = {
  'session.heartbeat': z.looseObject({ ...base('session.heartbeat'), server_time: z.string().nullable().optional() }),
  'session.status': z.looseObject({
    ...base('session.status'),
    conversation_id: z.string(),
    status: z.enum(['idle', 'launching', 'running', 'waiting', 'failed']),
  }),
  'session.input.consumed': z.looseObject({
    ...base('session.input.consumed'),
    data: z.looseObject({ item_id: z.string(), type: z.string() }),
  }),
  'session.interrupted': z.looseObject({
    ...base('session.interrupted'),
    data: z.looseObject({ requested_at: z.number(), response_id: z.string().nullable() }),
  }),
  'session.usage': z.looseObject({
    ...base('session.usage'),
    conversation_id: z.string(),
    total_cost_usd: z.number().nullable().optional(),
  }),
  'session.terminal.activity': z.looseObject({ ...base('session.terminal.activity'), session_id: z.string() }),
  'session.resource.created': z.looseObject({
    ...base('session.resource.created'),
    resource: z.looseObject({ id: z.string(), type: z.string() }),
  }),
  'session.changed_files.invalidated': z.looseObject({
    ...base('session.changed_files.invalidated'),
    session_id: z.string(),
    environment_id: z.string(),
  }),
  'session.presence': z.looseObject({ ...base('session.presence'), conversation_id: z.string(), viewers: z.array(z.unknown()) }),
  'response.in_progress': z.looseObject({ ...base('response.in_progress'), response: responseObject }),
  'response.completed': z.looseObject({ ...base('response.completed'), response: responseObject }),
  'response.failed': z.looseObject({ ...base('response.failed') }),
  'response.cancelled': z.looseObject({ ...base('response.cancelled'), response: responseObject }),
  'response.output_text.delta': z.looseObject({ ...base('response.output_text.delta'), delta: z.string() }),
  'response.output_item.done': z.looseObject({ ...base('response.output_item.done'), item }),
  'response.policy_denied': z.looseObject({
    ...base('response.policy_denied'),
    conversation_id: z.string(),
    reason: z.string(),
    phase: z.string(),
  }),
  'response.elicitation_request': z.looseObject({
    ...base('response.elicitation_request'),
    elicitation_id: z.string(),
    method: z.literal('elicitation/create'),
    params: z.looseObject({ mode: z.enum(['form', 'url']), message: z.string() }),
  }),
  'response.elicitation_resolved': z.looseObject({ ...base('response.elicitation_resolved'), elicitation_id: z.string() }),
  'response.error': z.looseObject({ ...base('response.error'), error: z.looseObject({ code: z.string(), message: z.string() }) }),
  'response.heartbeat': z.looseObject({ ...base('response.heartbeat') }),
  '[DONE]': z.literal('[DONE]'),
};

/** Hermes session chat stream payloads: every one stamped with session_id, run_id, seq. */
const stamped = { session_id: z.string(), run_id: z.string(), seq: z.number().int().positive() };
export const hermesSessionPayloads: Record<string, z.ZodType> = Object.fromEntries(
  [
    'run.started',
    'message.started',
    'assistant.delta',
    'reasoning.delta',
    'tool.progress',
    'tool.started',
    'tool.completed',
    'tool.failed',
    'assistant.commentary',
    'approval.request',
    'clarify.request',
    'assistant.completed',
    'run.completed',
    'run.cancelled',
    'run.failed',
    'error',
    'run.queued',
  ]
    .map((t): [string, z.ZodType] => [t, z.looseObject(stamped)])
    .concat([['done', z.looseObject({})]]),
);
