import { createServer } from 'node:http';
import type { WebSocket } from 'ws';
import { listen } from '../net/listen.js';
import { authorityOrigin, serveTunnels, type TunnelDecision } from '../net/tunnels.js';
import { type NamedCassette, ReplayEngine, type ReplayOptions } from './engine.js';
import { serveNodeRequest, serveNodeUpgrade } from './node-door.js';

export interface ReplayServerOptions extends ReplayOptions {
  port?: number;
  host?: string;
  /** One line per answered request. */
  log?: (line: string) => void;
}

export interface ReplayServer {
  readonly url: string;
  readonly engine: ReplayEngine;
  close(): Promise<void>;
}

/** Serves cassettes as a real HTTP server on loopback, for clients in any language. */
export async function startReplayServer(cassettes: readonly NamedCassette[], options: ReplayServerOptions = {}): Promise<ReplayServer> {
  const engine = new ReplayEngine(cassettes, options);
  const server = createServer((req, res) => {
    res.sendDate = false;
    try {
      serveNodeRequest(engine, req, res, options.log)?.catch(() => res.destroy());
    } catch {
      res.destroy();
    }
  });
  const sockets = new Set<WebSocket>();
  // A client behind HTTP_PROXY may tunnel plain HTTP: any origin's tunnel is served from the cassettes (nothing leaves).
  serveTunnels(server, tunnelToAnyOrigin, options.log ?? (() => {}));
  server.on('upgrade', (req, socket, head) => serveNodeUpgrade(engine, req, socket, head, { log: options.log, open: sockets }));
  const { url } = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    url,
    engine,
    async close() {
      server.closeAllConnections();
      for (const ws of sockets) ws.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function tunnelToAnyOrigin(authority: string): TunnelDecision {
  const origin = authorityOrigin(authority);
  return origin
    ? { ok: true, origin }
    : {
        ok: false,
        status: 400,
        code: 'bad_connect_target',
        message: `tapedeck replay cannot open a tunnel to ${JSON.stringify(authority)}`,
      };
}
