import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** What a server says of a CONNECT to `host:port`: the origin the tunnel leads to, or why it is refused. */
export type TunnelDecision = { ok: true; origin: string } | { ok: false; status: number; code: string; message: string };

/** The origin each accepted CONNECT tunnel leads to: the requests that come through it are that origin's. */
const tunnels = new WeakMap<object, string>();

/** The origin of the CONNECT tunnel a request's socket is, if it is one. */
export const tunnelOrigin = (socket: object): string | undefined => tunnels.get(socket);

/**
 * A client behind `HTTP_PROXY` that tunnels even plain HTTP (undici's
 * `EnvHttpProxyAgent` does) opens a CONNECT first: an accepted tunnel is read
 * as HTTP by this same server (its requests' origin is `tunnelOrigin`); a
 * refused one is answered with the status and why. A tunnel that carries TLS
 * cannot be read, and is closed with a line saying so.
 */
export function serveTunnels(server: Server, decide: (authority: string) => TunnelDecision, log: (line: string) => void): void {
  server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const tunnel = decide(req.url ?? '');
    if (!tunnel.ok) {
      log(`refused CONNECT (${tunnel.status}): ${tunnel.message}`);
      const body = JSON.stringify({ error: { code: tunnel.code, message: tunnel.message } });
      socket.end(
        `HTTP/1.1 ${tunnel.status} Refused\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      return;
    }
    tunnels.set(socket, tunnel.origin);
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.byteLength > 0) socket.unshift(head);
    server.emit('connection', socket);
  });
  server.on('clientError', (err: Error, socket: Duplex) => {
    const origin = tunnels.get(socket);
    if (origin) log(`closed the tunnel to ${origin}: what came through it is not HTTP (TLS, most likely), and cannot be read`);
    else if (socket.writable && (err as { code?: string }).code !== 'ECONNRESET')
      socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    socket.destroy();
  });
}

/** A CONNECT authority (`host:port`) as the plain-HTTP origin it names; undefined when it is none. */
export function authorityOrigin(authority: string): string | undefined {
  if (!/^[^/?#@\s]+:\d+$/.test(authority)) return undefined;
  try {
    return new URL(`http://${authority}`).origin;
  } catch {
    return undefined;
  }
}
