import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startListening } from './listening.js';

/**
 * The real MCP servers the peers run, each on a free 127.0.0.1 port that it says on stderr
 * (`tapedeck: listening on 127.0.0.1:<port>`): the reference server-everything (the pinned release and 2026.1.26,
 * made to listen on loopback only by a preload) and a FastMCP server on the Python SDK.
 */

const HERE = import.meta.dirname;
const LOOPBACK = join(HERE, 'clients', 'loopback-listen.mjs');
const PYTHON = join(HERE, 'python', 'mcp-fastmcp', '.venv', 'bin', 'python');
const everything = (pkg: string) => join(HERE, 'node_modules', pkg, 'dist', 'index.js');

export interface McpServer {
  name: string;
  /** The command line that runs it. */
  command: string[];
  /** The file `npm run test:peers` installs for it. */
  installed: string;
}

function serverEverything(name: string, pkg: string): McpServer {
  return { name, command: [process.execPath, '--import', LOOPBACK, everything(pkg), 'streamableHttp'], installed: everything(pkg) };
}

export const EVERYTHING = serverEverything('server-everything 2026.8.31', '@modelcontextprotocol/server-everything');
export const EVERYTHING_2026_1_26 = serverEverything('server-everything 2026.1.26', 'mcp-server-everything-2026.1.26');
export const FASTMCP: McpServer = {
  name: 'FastMCP on mcp 2.3.0',
  command: [PYTHON, join(HERE, 'clients', 'fastmcp_server.py')],
  installed: PYTHON,
};

/** Starts `server`; `cleanups` stops it by its PID. Resolves to its origin and its process. */
export async function startMcpServer(
  server: McpServer,
  cleanups: (() => Promise<unknown>)[],
): Promise<{ url: string; child: ChildProcess }> {
  if (!existsSync(server.installed)) throw new Error(`${server.name} is not installed at ${server.installed}; run npm run test:peers`);
  const { port, child } = await startListening(server.name, server.command, { env: { ...process.env, PORT: '0' } }, cleanups);
  return { url: `http://127.0.0.1:${port}`, child };
}
