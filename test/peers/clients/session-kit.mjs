// What the MCP client scripts share: a session's steps ended alike, and `node <script> URL` printing its view as JSON.
import { basename } from 'node:path';

/** Runs `session(url)` and prints its view, when the module at `moduleUrl` is the script node was given. */
export async function runAsMain(moduleUrl, session) {
  if (moduleUrl !== `file://${process.argv[1]}`) return;
  const url = process.argv[2];
  if (!url) {
    process.stderr.write(`usage: node ${basename(process.argv[1])} URL (the MCP endpoint, e.g. http://127.0.0.1:3001/mcp)\n`);
    process.exit(2);
  }
  process.stdout.write(`${JSON.stringify(await session(url))}\n`);
}

/** Runs `steps`, then ends the session with DELETE; a failure lands in `view.failed`. The client is closed either way. */
export async function inSession(client, transport, view, steps) {
  try {
    await steps();
    await transport.terminateSession();
    view.terminated = transport.sessionId === undefined;
  } catch (err) {
    view.failed = String(err?.message ?? err);
  } finally {
    await client.close();
  }
}
