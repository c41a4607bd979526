import { once } from 'node:events';
import type { Server } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { UsageError } from '../errors.js';

/** Listens on host:port (0 = any free port); a busy or forbidden port is a UsageError. */
export async function listen(server: Server, port: number, host: string): Promise<{ port: number; url: string }> {
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? 'the port is in use' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new UsageError(`cannot listen on ${host}:${port}: ${why}; pick another --port, or 0 for any free port`, { cause: err });
  }
  const actual = (server.address() as AddressInfo).port;
  return { port: actual, url: `http://${host.includes(':') ? `[${host}]` : host}:${actual}` };
}

/**
 * How long an idle keep-alive connection stays open. Node closes one after about 6 s, but clients keep theirs longer
 * (Go 90 s, urllib3 with no limit): one that sends a request as the server closes the socket loses the request
 * ("other side closed"). Outlasting them, as load balancers do, leaves the closing to the client.
 */
export const IDLE_CONNECTION_MS = 65_000;

/** Keeps idle client connections open past every common client's own keep-alive limit (see IDLE_CONNECTION_MS). */
export function outlastClientKeepAlive(server: Server): void {
  server.keepAliveTimeout = IDLE_CONNECTION_MS;
}

/** A free port on 127.0.0.1, for servers that cannot report the one they took. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
