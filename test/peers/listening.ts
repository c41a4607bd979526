import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * Starts a real server that picks its own 127.0.0.1 port and says it on stderr (`tapedeck: listening on
 * 127.0.0.1:<port>`); `cleanups` stops it by its PID: SIGTERM, then SIGKILL for one still there after 5 s.
 */
export async function startListening(
  name: string,
  command: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string },
  cleanups: (() => Promise<unknown>)[],
): Promise<{ port: string; child: ChildProcess }> {
  const child = spawn(command[0] as string, command.slice(1), {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  });
  let stderr = '';
  const port = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (d) => {
      stderr += d;
      const m = /tapedeck: listening on 127\.0\.0\.1:(\d+)/.exec(stderr);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before listening: ${stderr}`)));
  });
  return { port, child };
}
