import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { listen } from './listen.js';

/** What takes each WebSocket handshake the hop's server is sent: the socket is its own from then on. */
export type OnUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * A loopback server of a dispatcher's own for the WebSocket handshakes it is given: undici hands a dispatcher a
 * handshake but wants a real socket back, so the session is served on this server's socket (by the recorder's relay,
 * or the replayer's session) and undici talks to it as to any server. It starts with the first handshake.
 */
export class UpgradeHop {
  private server: Promise<{ server: Server; url: string }> | undefined;
  /** How to end each session under way when the hop closes. */
  private readonly sessions = new Set<() => void>();
  private closing = false;

  constructor(private readonly onUpgrade: OnUpgrade) {}

  /** True once `close` was called: a handshake now has nowhere to go. */
  get closed(): boolean {
    return this.closing;
  }

  /** The server's origin (`http://127.0.0.1:PORT`), started on first use. */
  async url(): Promise<string> {
    this.server ??= (async () => {
      const server = createServer((_req, res) => {
        res.writeHead(426, { connection: 'close' });
        res.end();
      });
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        if (this.closing) socket.destroy();
        else this.onUpgrade(req, socket, head);
      });
      const { url } = await listen(server, 0, '127.0.0.1');
      return { server, url };
    })();
    return (await this.server).url;
  }

  /** Registers how to end one session under way; returns how to forget it once it has ended. */
  track(stop: () => void): () => void {
    this.sessions.add(stop);
    return () => this.sessions.delete(stop);
  }

  /** Ends every session under way, then the server. */
  async close(): Promise<void> {
    this.closing = true;
    for (const stop of [...this.sessions]) stop();
    if (!this.server) return;
    const { server } = await this.server;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
