import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { listeningUrl } from '../helpers/cli.js';

const SERVER = join(import.meta.dirname, 'session-server.mjs');

export interface SessionServer {
  url: string;
  stop(): Promise<void>;
}

/** The session API as its own process (`--changed`: its next release), stopped by its PID. */
export async function startSessionServer(changed = false): Promise<SessionServer> {
  const child: ChildProcess = spawn(process.execPath, [SERVER, ...(changed ? ['--changed'] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await listeningUrl(
    child,
    once(child, 'exit').then(([code]) => code),
    (code) => `session-server exited (${code}) before listening`,
  );
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
