import * as mcp from '@modelcontextprotocol/core';
import { z } from 'zod';
import type { Pack, ResultContext, Rule } from '../../contracts/index.js';
import { atMostOne, eventually, firstEvent, never, precedes, sequence, streamMeta } from '../../contracts/index.js';
import { LEVELS } from './levels.js';

const m = streamMeta('MCP 2025-11-25 basic/transports, basic/lifecycle, basic/utilities');

/** A JSON-RPC notification: it carries no id (so nothing can answer it); then the SDK's own schema. */
const notification = (schema: z.ZodType) =>
  z
    .unknown()
    .refine((msg) => !(typeof msg === 'object' && msg !== null && 'id' in msg), { error: 'a notification carries no id' })
    .pipe(schema);

/** What the SDK publishes of each message a client sends (the JSON-RPC envelope aside). */
const clientMessages: Record<string, z.ZodType> = {
  'client:initialize': mcp.InitializeRequestSchema,
  'client:notifications/initialized': notification(mcp.InitializedNotificationSchema),
  'client:notifications/cancelled': notification(mcp.CancelledNotificationSchema),
  'client:ping': mcp.PingRequestSchema,
  'client:tools/list': mcp.ListToolsRequestSchema,
  'client:tools/call': mcp.CallToolRequestSchema,
  'client:resources/list': mcp.ListResourcesRequestSchema,
  'client:resources/templates/list': mcp.ListResourceTemplatesRequestSchema,
  'client:resources/read': mcp.ReadResourceRequestSchema,
  'client:resources/subscribe': mcp.SubscribeRequestSchema,
  'client:resources/unsubscribe': mcp.UnsubscribeRequestSchema,
  'client:prompts/list': mcp.ListPromptsRequestSchema,
  'client:prompts/get': mcp.GetPromptRequestSchema,
  'client:logging/setLevel': mcp.SetLevelRequestSchema,
  'client:completion/complete': mcp.CompleteRequestSchema,
};

/** What a server sends: its notifications, and responses that carry exactly one of a result and an error. */
const serverMessages: Record<string, z.ZodType> = {
  response: z.union([mcp.JSONRPCResultResponseSchema, mcp.JSONRPCErrorResponseSchema]),
  'notifications/progress': notification(mcp.ProgressNotificationSchema),
  'notifications/message': notification(mcp.LoggingMessageNotificationSchema),
  'notifications/cancelled': notification(mcp.CancelledNotificationSchema),
  'notifications/resources/updated': notification(mcp.ResourceUpdatedNotificationSchema),
  'notifications/resources/list_changed': notification(mcp.ResourceListChangedNotificationSchema),
  'notifications/tools/list_changed': notification(mcp.ToolListChangedNotificationSchema),
  'notifications/prompts/list_changed': notification(mcp.PromptListChangedNotificationSchema),
};

/** Each request's result, by its method: the SDK's published result schemas. */
const results: Record<string, z.ZodType> = {
  initialize: mcp.InitializeResultSchema,
  ping: mcp.EmptyResultSchema,
  'tools/list': mcp.ListToolsResultSchema,
  'tools/call': mcp.CallToolResultSchema,
  'resources/list': mcp.ListResourcesResultSchema,
  'resources/templates/list': mcp.ListResourceTemplatesResultSchema,
  'resources/read': mcp.ReadResourceResultSchema,
  'resources/subscribe': mcp.EmptyResultSchema,
  'resources/unsubscribe': mcp.EmptyResultSchema,
  'prompts/list': mcp.ListPromptsResultSchema,
  'prompts/get': mcp.GetPromptResultSchema,
  'logging/setLevel': mcp.EmptyResultSchema,
  'completion/complete': mcp.CompleteResultSchema,
};

type Tool = { name?: unknown; outputSchema?: unknown };

/**
 * A tool that lists an outputSchema promises structured results (server/tools, "Output Schema": servers MUST provide
 * structured results that conform to it): a successful call of it carries structuredContent. Found by fuzzing the
 * SDK client, which refuses such a result.
 */
function structuredWhenPromised(result: unknown, { request, earlier }: ResultContext): string | undefined {
  const r = result as { isError?: unknown; structuredContent?: unknown } | undefined;
  if (r?.isError === true || r?.structuredContent !== undefined) return undefined;
  const name = (request as { params?: { name?: unknown } } | undefined)?.params?.name;
  const tool = earlier('tools/list')
    .flatMap((list) => ((list as { tools?: Tool[] } | undefined)?.tools ?? []) as Tool[])
    .find((t) => t.name === name);
  return tool?.outputSchema === undefined
    ? undefined
    : `tool ${String(name)} lists an outputSchema, but its result has no structuredContent`;
}

/** A client request: a client message with both a method and an id. */
const REQUEST = 'client:*[id][method]';
/** A progress token, on a notification, on the request that asked for progress, and (as `request`) on its response. */
const TOKEN = 'params.progressToken|params._meta.progressToken|request.params._meta.progressToken';

/** RFC 5424 severities, as MCP's `logging/setLevel` orders them. */

/** For each level a client may set, no message below it until it sets another. */
const loggingRules: Rule[] = LEVELS.slice(1).map((level, n) =>
  never(
    `notifications/message[params.level=${LEVELS.slice(0, n + 1).join('|')}]`,
    { after: `client:logging/setLevel[params.level=${level}]`, until: 'client:logging/setLevel' },
    m(
      `logging-at-least-${level}`,
      `after logging/setLevel ${level}, no message below ${level} until another level is set`,
      'server/utilities/logging',
    ),
  ),
);

/** The rules of the Streamable HTTP transport and the lifecycle, over a whole session, both sides. */
const rules: Rule[] = [
  firstEvent('client:initialize', m('starts-with-initialize', 'a session starts with the client’s initialize', 'lifecycle/initialization')),
  never(
    REQUEST,
    { after: 'client:initialize', until: 'client:notifications/initialized' },
    m('initialized-before-requests', 'no request but initialize before the initialized notification', 'lifecycle/initialization'),
  ),
  {
    ...eventually(
      'response|client:notifications/cancelled',
      { after: REQUEST },
      m(
        'request-answered-or-cancelled',
        'every request is answered, or cancelled (then no result, or one)',
        'basic/messages, utilities/cancellation',
      ),
    ),
    by: 'id|params.requestId',
  },
  {
    ...atMostOne('response', m('one-response-per-request', 'a request id is answered at most once', 'basic/messages')),
    by: 'id',
  },
  {
    ...precedes(REQUEST, 'response', m('response-to-a-request', 'a response answers a request the client sent', 'basic/messages')),
    by: 'id',
  },
  {
    ...precedes(
      'client:*[params._meta.progressToken]',
      'notifications/progress',
      m('progress-for-a-request', 'a progress notification is for a token a request carried', 'utilities/progress'),
    ),
    by: TOKEN,
  },
  {
    ...sequence(
      'params.progress',
      {},
      m('progress-increases', 'a token’s progress increases with each notification', 'utilities/progress'),
    ),
    by: 'params.progressToken',
  },
  {
    ...never(
      'notifications/progress',
      { after: 'response' },
      m('no-progress-after-result', 'no progress for a request after its result', 'utilities/progress'),
    ),
    by: TOKEN,
  },
  {
    ...precedes(
      'client:resources/subscribe',
      'notifications/resources/updated',
      m('updated-only-if-subscribed', 'resources/updated only for a URI the client subscribed to', 'server/resources'),
    ),
    by: 'params.uri',
  },
  ...loggingRules,
];

/**
 * MCP over Streamable HTTP: a session is every interaction carrying its `Mcp-Session-Id`, checked as one stream
 * of both sides' JSON-RPC messages (client messages typed `client:<method>`), whatever POST, GET or SSE stream
 * carried each. Payloads and results are the SDK's published schemas; the vocabulary stays open.
 */
export const mcpStreamableHttp: Pack = {
  name: 'mcp/streamable-http',
  description:
    'MCP sessions over Streamable HTTP: initialize first, every request answered once, progress before its result and increasing, updates only for subscriptions, logging at the level set.',
  turnStarts: [],
  session: { header: 'mcp-session-id' },
  payloads: { ...clientMessages, ...serverMessages },
  results,
  resultChecks: { 'tools/call': structuredWhenPromised },
  openVocabulary: true,
  rules,
};
