import { connect } from 'node:net';
import { TapedeckError, UsageError } from '../../errors.js';

function parsedUrl(server: string, example: string): URL {
  try {
    return new URL(server);
  } catch {
    throw new UsageError(`--server ${JSON.stringify(server)} is not a URL; give one like ${example}`);
  }
}

function unreachable(server: string, cause: string): TapedeckError {
  return new TapedeckError(
    'server_unreachable',
    `cannot reach ${server} (${cause}); is the server running? Omit --server to record the embedded simulator`,
  );
}

/**
 * Asks a live server its health route before any probe runs: a server of
 * another kind, or none at all, would otherwise be found out probe by probe,
 * each SKIPPED after its timeouts, and the run would end 0 with nothing real.
 */
export async function checkHealthRoute(
  server: string,
  health: { path: string; family: string; example: string; accept?: (status: number) => boolean },
): Promise<void> {
  const url = parsedUrl(server, health.example);
  let status: number;
  try {
    const res = await fetch(new URL(health.path, url), { signal: AbortSignal.timeout(5000) });
    await res.arrayBuffer();
    status = res.status;
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw unreachable(server, cause?.code ?? cause?.message ?? (err as Error).message);
  }
  if (!(health.accept ?? ((s) => s === 200))(status))
    throw new UsageError(
      `${server} answered GET ${health.path} with ${status}: it is not ${health.family}; give its URL, or --target for another family`,
    );
}

/** Checks something listens at a URL's host and port (for protocols with no health route, such as a WebSocket server). */
export async function checkListening(server: string, example: string): Promise<void> {
  const url = parsedUrl(server, example);
  const port = Number(url.port || (url.protocol === 'wss:' ? 443 : 80));
  await new Promise<void>((resolve, reject) => {
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port });
    socket.setTimeout(5000, () => socket.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    socket.once('connect', () => {
      socket.end();
      resolve();
    });
    socket.once('error', (err: NodeJS.ErrnoException) => reject(unreachable(server, err.code ?? err.message)));
  });
}

/** Checks a `--server` URL is http(s) and something listens there; `what` says what such a server's URL is. */
export async function checkHttpListening(server: string, example: string, what: string): Promise<void> {
  if (!/^https?:$/.test(parsedUrl(server, example).protocol))
    throw new UsageError(`--server ${server}: ${what} has an http:// URL, such as ${example}`);
  await checkListening(server, example);
}
