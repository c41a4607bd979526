// The official A2A JavaScript client (@a2a-js/sdk 1.3.0) through one conversation with an agent: a message, a
// streamed message, GetTask of the first task. Every request goes to the origin given (the recording proxy's): the
// card's absolute endpoint is rewritten onto it, as a client configured behind a proxy would. Prints what it saw as
// JSON. Usage: node a2a-js-client-flow.mjs <base URL>
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

const base = new URL(process.argv[2]);
const throughBase = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  return fetch(`${base.origin}${url.pathname}${url.search}`, init);
};
const factory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl: throughBase })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: throughBase }),
  }),
);
const client = await factory.createFromUrl(base.origin);
const message = (id, text) => ({
  messageId: id,
  role: 1,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
  contextId: '',
  taskId: '',
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const sent = await client.sendMessage({
  message: message('flow-1', 'hello from the SDK client'),
  configuration: undefined,
  metadata: undefined,
  tenant: '',
});
const kinds = [];
for await (const event of client.sendMessageStream({
  message: message('flow-2', 'stream it back'),
  configuration: undefined,
  metadata: undefined,
  tenant: '',
}))
  kinds.push(event.payload?.$case ?? 'none');
const taskId = sent.id;
const got = taskId ? await client.getTask({ id: taskId, historyLength: undefined, tenant: '' }) : undefined;
process.stdout.write(`${JSON.stringify({ task: Boolean(taskId), kinds, got: got?.status?.state === sent.status?.state })}\n`);
