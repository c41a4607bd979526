import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';
import { listen, outlastClientKeepAlive } from '../net/listen.js';
import { authorityOrigin, serveTunnels, type TunnelDecision } from '../net/tunnels.js';
import { type NamedCassette, ReplayEngine, type ReplayOptions } from './engine.js';
import { withMatchConfig } from './match-config.js';
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
  const { options: configured, places } = withMatchConfig(options);
  const engine = new ReplayEngine(cassettes, configured, places);
  const server = createServer((req, res) => {
    res.sendDate = false;
    if (req.url === HEALTH && req.method === 'GET') {
      answerHealth(res, engine);
      return;
    }
    try {
      serveNodeRequest(engine, req, res, options.log)?.catch((err) => answerFailure(req, res, err, options.log));
    } catch (err) {
      answerFailure(req, res, err, options.log);
    }
  });
  outlastClientKeepAlive(server);
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

/** A request the engine could not answer: a 500 that says so, and a log line, never a silently dropped connection. */
function answerFailure(req: IncomingMessage, res: ServerResponse, err: unknown, log: ((line: string) => void) | undefined): void {
  const message = `tapedeck replay could not answer ${req.method} ${req.url}: ${(err as Error)?.message ?? String(err)}`;
  log?.(`${req.method} ${req.url} → 500 ${message}`);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(500, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify({ error: { code: 'tapedeck_replay_failed', message } }));
}

/** Where a script asks whether the server is up: a path under a prefix no real server's recording holds. */
export const HEALTH = '/__tapedeck/health';

function answerHealth(res: ServerResponse, engine: ReplayEngine): void {
  const body = JSON.stringify({ status: 'ok', misses: engine.missCount, faults: engine.faultCount });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
