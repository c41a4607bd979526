import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { listen } from '../../../net/listen.js';
import { SeededIds } from '../../../net/seeded-ids.js';
import { serveConnection } from './connection.js';
import type { Thread, World } from './views.js';

export interface CodexSimulatorOptions {
  seed?: number;
  port?: number;
  host?: string;
}

export interface CodexSimulator {
  /** The ws:// URL clients connect to. */
  url: string;
  close(): Promise<void>;
}

/**
 * A codex app-server simulator (JSON-RPC over WebSocket, no "jsonrpc" member),
 * following native-server-transports.md §3: the handshake, thread/start and
 * thread/resume, turn/start, turn/steer and turn/interrupt, item notifications,
 * command approvals requested by the server and `serverRequest/resolved`.
 */
export async function startCodexSimulator(options: CodexSimulatorOptions = {}): Promise<CodexSimulator> {
  const ids = new SeededIds(options.seed ?? 1);
  const uuid = () => {
    const h = ids.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-7${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  };
  const world: World = { ids, threads: new Map<string, Thread>(), uuid };
  const http = createServer((req, res) => {
    res.sendDate = false;
    const ok = req.url === '/readyz' || req.url === '/healthz';
    res.writeHead(ok ? 200 : 400, { 'content-type': 'text/plain' });
    res.end(ok ? 'ok' : 'expected a WebSocket upgrade');
  });
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req, socket, head) => {
    // The real listener refuses any Origin (a browser page must not drive the agent).
    if (req.headers.origin) {
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serveConnection(world, ws));
  });
  const { port } = await listen(http, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    url: `ws://${options.host ?? '127.0.0.1'}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
