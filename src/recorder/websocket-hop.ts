import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import { listen } from '../net/listen.js';
import type { LegacyHandler } from '../net/undici-dispatch.js';
import type { ProxyContext } from './proxy/exchange-parts.js';
import { relayWebSocket } from './websocket-relay.js';

/**
 * The WebSocket handshakes an in-process recorder is given (undici's `WebSocket` with it as `dispatcher`): each
 * goes through a loopback server of the recorder's own to the proxy's relay, so a session is recorded on the same
 * timeline, by the same code, as `bench proxy` records it. The server starts with the first session.
 */
export class WebSocketHop {
  private server: Promise<{ server: Server; url: string }> | undefined;
  /** How to end each session under way, as the proxy ends its own when it stops. */
  private readonly sessions = new Set<() => void>();
  private closing = false;

  constructor(
    private readonly ctx: ProxyContext,
    /** The target's origin: a handshake to another (allowed) origin goes to the relay in absolute form. */
    private readonly origin: string,
  ) {}

  /** Sends the handshake through the relay, as the proxy is sent it: `path` under the target, or another origin's URL. */
  dispatch(opts: Dispatcher.DispatchOptions, path: string, handler: Dispatcher.DispatchHandler): true {
    const fail = (err: Error) => (handler as unknown as LegacyHandler).onError?.(err);
    if (this.closing) {
      queueMicrotask(() => fail(new Error('the recorder is closed: a WebSocket opened now is not recorded')));
      return true;
    }
    const origin = opts.origin === undefined ? this.origin : new URL(String(opts.origin)).origin;
    const sent = origin === this.origin ? path : `${origin}${opts.path}`;
    this.listening().then(({ url }) => {
      this.ctx.agent.dispatch({ ...opts, origin: url, path: sent }, handler);
    }, fail);
    return true;
  }

  private listening(): Promise<{ server: Server; url: string }> {
    this.server ??= (async () => {
      const server = createServer((_req, res) => {
        res.writeHead(426, { connection: 'close' });
        res.end();
      });
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        if (this.closing) {
          socket.destroy();
          return;
        }
        const track = (stop: () => void) => {
          this.sessions.add(stop);
          return () => this.sessions.delete(stop);
        };
        const { timeline, target, log, shown } = this.ctx;
        relayWebSocket({ timeline, target, log, shown, track }, req, socket, head);
      });
      const { url } = await listen(server, 0, '127.0.0.1');
      return { server, url };
    })();
    return this.server;
  }

  /** Ends every session under way (recorded as the proxy records its own stop) and the server. */
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
