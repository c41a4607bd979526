import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { startBench } from './cli.js';

const run = promisify(execFile);

/**
 * Records curl's POSTs of `bodies` to `target` + `path` through `npx bench proxy` into `cassette`, each stream
 * read to its end, then stops the proxy by its PID with SIGTERM as a user's script would.
 */
export async function curlThroughProxy(target: string, cassette: string, path: string, bodies: readonly unknown[]): Promise<void> {
  const proxy = await startBench(['proxy', '--target', target, '--port', '0', '--cassette', cassette]);
  try {
    for (const body of bodies)
      await run('curl', ['-sS', '-N', '-H', 'content-type: application/json', '--data', JSON.stringify(body), `${proxy.url}${path}`]);
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit()).toBe(0);
  } finally {
    if (proxy.child.exitCode === null) proxy.child.kill('SIGKILL');
  }
}
