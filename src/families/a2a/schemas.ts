import { z } from 'zod';

/**
 * A2A 1.0's messages as JSON-RPC carries them (the proto3 JSON of `lf.a2a.v1`, as `@a2a-js/sdk` 1.3.0 and
 * `a2a-sdk` 1.3.0 write it: enums as their names, a oneof as the one field set, defaults left out). Neither SDK
 * publishes a runtime schema (the JS one has TypeScript types and lenient `fromJSON`, the Python one protobuf
 * classes), so these follow the SDK's types field by field; objects stay open to fields a later version adds.
 */
export const TASK_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;

/** States after which a stream ends: the task is done, or waits for the client. */
export const FINAL_STATES = [
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;

const metadata = z.record(z.string(), z.unknown()).optional();

/** Exactly one of `cases` is set: a proto oneof in JSON. */
const oneOf = <T extends z.ZodType>(schema: T, cases: readonly string[]) =>
  schema.refine((v) => cases.filter((c) => (v as Record<string, unknown>)[c] !== undefined).length === 1, {
    error: `exactly one of ${cases.join(', ')}`,
  });

export const partSchema = oneOf(
  z.looseObject({
    text: z.string().optional(),
    raw: z.string().optional(),
    url: z.string().optional(),
    data: z.unknown().optional(),
    metadata,
    filename: z.string().optional(),
    mediaType: z.string().optional(),
  }),
  ['text', 'raw', 'url', 'data'],
);

export const messageSchema = z.looseObject({
  messageId: z.string().min(1),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  role: z.enum(['ROLE_USER', 'ROLE_AGENT']),
  parts: z.array(partSchema).min(1),
  metadata,
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});

const statusSchema = z.looseObject({
  state: z.enum(TASK_STATES),
  message: messageSchema.optional(),
  timestamp: z.iso.datetime().optional(),
});

const artifactSchema = z.looseObject({
  artifactId: z.string().min(1),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(partSchema).min(1),
  metadata,
  extensions: z.array(z.string()).optional(),
});

export const taskSchema = z.looseObject({
  id: z.string().min(1),
  contextId: z.string().optional(),
  status: statusSchema,
  artifacts: z.array(artifactSchema).optional(),
  history: z.array(messageSchema).optional(),
  metadata,
});

const statusUpdateSchema = z.looseObject({ taskId: z.string().min(1), contextId: z.string().optional(), status: statusSchema, metadata });
const artifactUpdateSchema = z.looseObject({
  taskId: z.string().min(1),
  contextId: z.string().optional(),
  artifact: artifactSchema,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata,
});

/** What SendMessage answers: a task, or a message. */
export const sendMessageResultSchema = oneOf(z.looseObject({ task: taskSchema.optional(), message: messageSchema.optional() }), [
  'task',
  'message',
]);

/** One event of a stream (SendStreamingMessage, SubscribeToTask). */
export const streamResultSchema = oneOf(
  z.looseObject({
    task: taskSchema.optional(),
    message: messageSchema.optional(),
    statusUpdate: statusUpdateSchema.optional(),
    artifactUpdate: artifactUpdateSchema.optional(),
  }),
  ['task', 'message', 'statusUpdate', 'artifactUpdate'],
);

const request = (params: z.ZodType) =>
  z.looseObject({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number()]), method: z.string(), params });

const sendParams = z.looseObject({
  message: messageSchema,
  configuration: z.looseObject({ returnImmediately: z.boolean().optional(), historyLength: z.number().int().optional() }).optional(),
  metadata,
});
const byId = z.looseObject({ id: z.string().min(1), historyLength: z.number().int().optional() });

/** What a client sends, by method. */
export const clientMessages: Record<string, z.ZodType> = {
  'client:SendMessage': request(sendParams),
  'client:SendStreamingMessage': request(sendParams),
  'client:GetTask': request(byId),
  'client:CancelTask': request(byId),
  'client:SubscribeToTask': request(byId),
};

/** A JSON-RPC response: exactly one of a result and an error, the error with an integer code. */
export const responseSchema = z.union([
  z
    .looseObject({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number()]), result: z.unknown() })
    .refine((r) => r.result !== undefined, {
      error: 'a result',
    }),
  z.looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    error: z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
  }),
]);

/** Each method's result. */
export const results: Record<string, z.ZodType> = {
  SendMessage: sendMessageResultSchema,
  SendStreamingMessage: streamResultSchema,
  SubscribeToTask: streamResultSchema,
  GetTask: taskSchema,
  CancelTask: taskSchema,
  ListTasks: z.looseObject({ tasks: z.array(taskSchema) }),
};
