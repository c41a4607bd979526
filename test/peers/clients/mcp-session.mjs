// One session of the official MCP TypeScript SDK client against the "everything" reference server (Streamable
// HTTP), as an application drives it. `node mcp-session.mjs URL` prints what the client saw as JSON; a test in
// the same process imports `mcpSession` (the MSW door answers its fetches there).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { inSession, runAsMain } from './session-kit.mjs';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** What differs between two runs of the same session: the session id the server draws, and a log's random level. */
const normal = (value) => JSON.parse(JSON.stringify(value).replace(UUID, '<session>'));
const sortedKeys = (o) => Object.keys(o ?? {}).sort();

/** Resolves at the first call of the returned function, or after `ms` with false. */
function firstCall(ms) {
  let resolve;
  const seen = new Promise((r) => {
    resolve = r;
  });
  const timer = setTimeout(() => resolve(false), ms);
  return {
    seen,
    call: () => {
      clearTimeout(timer);
      resolve(true);
    },
  };
}

/**
 * Initialize, tools/list, tools/call, logging switched on (its messages come on the standalone GET stream), a
 * long-running call with progress, logging off, and the session's DELETE. Returns the client's view of it.
 */
export async function mcpSession(url) {
  const client = new Client({ name: 'tapedeck-mcp-check', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const errors = [];
  const messages = [];
  const logs = [];
  const firstLog = firstCall(15_000);
  // Every message the transport hands the client, in arrival order (the initialize answer included).
  let deliver;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => deliver,
    set: (fn) => {
      deliver =
        fn &&
        ((message, extra) => {
          messages.push(message);
          fn(message, extra);
        });
    },
  });
  transport.onerror = (err) => errors.push(String(err?.message ?? err));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push({ level: typeof n.params.level, data: typeof n.params.data });
    firstLog.call();
  });
  const view = {};
  await inSession(client, transport, view, async () => {
    await client.connect(transport);
    const server = client.getServerVersion();
    view.initialize = {
      server: { name: server?.name, version: server?.version },
      protocolVersion: transport.protocolVersion,
      capabilities: sortedKeys(client.getServerCapabilities()),
      instructions: typeof client.getInstructions() === 'string',
    };
    view.tools = (await client.listTools()).tools.map((t) => t.name).sort();
    view.echo = (await client.callTool({ name: 'echo', arguments: { message: 'hello from tapedeck' } })).content;
    view.loggingOn = normal((await client.callTool({ name: 'toggle-simulated-logging', arguments: {} })).content);
    view.logArrived = await firstLog.seen;
    const progress = [];
    const long = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 4 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    view.longRunning = { content: long.content, progress };
    view.loggingOff = normal((await client.callTool({ name: 'toggle-simulated-logging', arguments: {} })).content);
  });
  // A log's level is drawn at random, and one more may come every 5 s: two live runs agree on each log's shape, not
  // on the count. A replay gives the count its recording had (a stream replayed twice would give more).
  view.logs = [...new Set(logs.map((l) => JSON.stringify(l)))];
  view.logCount = logs.length;
  // Results and progress in the order they came; notifications of the GET stream are apart (their order against
  // the calls' answers is the network's).
  view.answers = normal(messages.filter((m) => 'id' in m || m.method === 'notifications/progress'));
  view.errors = normal(errors);
  return view;
}

await runAsMain(import.meta.url, (url) => mcpSession(url));
