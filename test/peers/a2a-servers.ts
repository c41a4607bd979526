import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startListening } from './listening.js';

/**
 * The real A2A agents the peers run, one on each official SDK: @a2a-js/sdk 1.3.0 (test/peers/clients/a2a-js-server.mjs)
 * and a2a-sdk 1.3.0 for Python (test/peers/clients/a2a_python_server.py), each on a free 127.0.0.1 port it says on
 * stderr (`tapedeck: listening on 127.0.0.1:<port>`), its card at /.well-known/agent-card.json.
 */
const HERE = import.meta.dirname;

export interface A2aServer {
  name: string;
  /** Its committed recordings: cassettes/<folder>. */
  folder: string;
  command: string[];
  /** What `npm run test:peers` installs for it. */
  installed: string;
}

export const A2A_JS: A2aServer = {
  name: '@a2a-js/sdk 1.3.0',
  folder: 'a2a-js-real',
  command: [process.execPath, join(HERE, 'clients', 'a2a-js-server.mjs')],
  installed: join(HERE, 'node_modules', '@a2a-js', 'sdk', 'package.json'),
};

const PYTHON = join(HERE, 'python', 'a2a-python', '.venv', 'bin', 'python');
export const A2A_PYTHON: A2aServer = {
  name: 'a2a-sdk 1.3.0 (Python)',
  folder: 'a2a-python-real',
  command: [PYTHON, join(HERE, 'clients', 'a2a_python_server.py')],
  installed: PYTHON,
};

/** Starts `s`; `cleanups` stops it by its PID. Resolves to its base URL. */
export async function startA2aServer(s: A2aServer, cleanups: (() => Promise<unknown>)[]): Promise<{ url: string; child: ChildProcess }> {
  if (!existsSync(s.installed)) throw new Error(`${s.name} is not installed at ${s.installed}; run npm run test:peers`);
  const { port, child } = await startListening(s.name, s.command, { cwd: HERE }, cleanups);
  return { url: `http://127.0.0.1:${port}`, child };
}
