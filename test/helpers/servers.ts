import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Starts a node:http server on a free loopback port; close() also drops open sockets. */
export async function startServer(handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>): Promise<TestServer> {
  const server = createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch((err) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Resolves after `ms`; used only to let a server pause between events. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
