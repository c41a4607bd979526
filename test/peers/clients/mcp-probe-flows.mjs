// The MCP probes' flows, driven by the official MCP TypeScript SDK client instead of tapedeck's own: initialize,
// tools/list, a call and a call without its arguments, a long call with progress, a long call cancelled, resources,
// prompts, completion, and the session's DELETE. Works on any server the probes do (it reads the server's own
// tools, resources and prompts). `node mcp-probe-flows.mjs URL` prints what the client saw as JSON.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { inSession, runAsMain } from './session-kit.mjs';

/** What two runs of one server may differ in: the session ids it draws (UUIDs, or the Python SDK's 32 hex digits). */
const SESSION_ID = /[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}/g;
const normal = (value) => JSON.parse(JSON.stringify(value ?? null).replace(SESSION_ID, '<session>'));
const sortedKeys = (o) => Object.keys(o ?? {}).sort();
const settled = (promise) =>
  promise.then(
    (value) => ({ value }),
    (err) => ({ rejected: err?.name === 'AbortError' ? 'AbortError' : String(err?.message ?? err) }),
  );

async function toolFlows(client, tools, view) {
  const echo = tools.find((t) => t.name === 'echo');
  if (!echo) return;
  view.toolCall = normal((await client.callTool({ name: 'echo', arguments: { message: 'tapedeck' } })).content);
  const wrong = await settled(client.callTool({ name: 'echo', arguments: {} }));
  view.toolError = wrong.rejected ?? { isError: wrong.value.isError === true, blocks: wrong.value.content?.length };
  const long = tools.find((t) => /long.?running/i.test(t.name));
  if (!long) return;
  const progress = [];
  const done = await client.callTool({ name: long.name, arguments: { duration: 1, steps: 4 } }, undefined, {
    onprogress: (p) => progress.push(p),
  });
  view.progress = { progress, content: normal(done.content) };
  // Cancelled after its first progress: the SDK sends notifications/cancelled and rejects the call.
  const controller = new AbortController();
  const cancelled = await settled(
    client.callTool({ name: long.name, arguments: { duration: 2, steps: 4 } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort(),
    }),
  );
  view.cancel = cancelled.rejected ?? 'completed';
}

async function resourceFlows(client, capabilities, view) {
  if (capabilities.resources) {
    const listed = (await client.listResources()).resources;
    const first = listed[0];
    view.resources = { count: listed.length, first: first?.uri };
    if (first) view.resources.read = normal((await client.readResource({ uri: first.uri })).contents.map((c) => c.uri));
  }
  if (capabilities.prompts) {
    const prompts = (await client.listPrompts()).prompts;
    const free = prompts.find((p) => !(p.arguments ?? []).some((a) => a.required));
    view.prompts = { names: prompts.map((p) => p.name).sort() };
    if (free) view.prompts.got = (await client.getPrompt({ name: free.name })).messages.length;
    const withArgument = prompts.find((p) => (p.arguments ?? []).length > 0);
    if (capabilities.completions && withArgument) {
      const argument = withArgument.arguments[0].name;
      const reply = await client.complete({
        ref: { type: 'ref/prompt', name: withArgument.name },
        argument: { name: argument, value: '' },
      });
      view.completion = { prompt: withArgument.name, argument, values: reply.completion.values };
    }
  }
}

/**
 * One session of the probes' flows; returns the client's view of it. `fetch` replaces the global one (a door's);
 * `connectTimeoutMs` bounds the wait for initialize's answer (the SDK's default is 60 s).
 */
export async function mcpProbeFlows(url, { fetch, connectTimeoutMs } = {}) {
  const client = new Client({ name: 'tapedeck-probe-flows', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), fetch ? { fetch } : {});
  const errors = [];
  // The client's onerror: the transport's errors, and what the protocol layer refuses (an answer for no request).
  client.onerror = (err) => errors.push(String(err?.message ?? err));
  const view = {};
  await inSession(client, transport, view, async () => {
    await client.connect(transport, connectTimeoutMs ? { timeout: connectTimeoutMs } : undefined);
    const server = client.getServerVersion();
    const capabilities = client.getServerCapabilities() ?? {};
    view.initialize = {
      server: { name: server?.name, version: server?.version },
      protocolVersion: transport.protocolVersion,
      capabilities: sortedKeys(capabilities),
      session: transport.sessionId === undefined ? 'none' : 'issued',
    };
    const tools = capabilities.tools ? (await client.listTools()).tools : [];
    view.tools = tools.map((t) => ({ name: t.name, schema: t.inputSchema?.type, required: t.inputSchema?.required ?? [] }));
    await toolFlows(client, tools, view);
    await resourceFlows(client, capabilities, view);
  });
  view.errors = normal(errors);
  return view;
}

await runAsMain(import.meta.url, (url) => mcpProbeFlows(url));
