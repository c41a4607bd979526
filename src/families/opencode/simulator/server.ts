import { createServer } from 'node:http';
import { sendJson } from '../../../net/http-json.js';
import { listen } from '../../../net/listen.js';
import { SeededIds } from '../../../net/seeded-ids.js';
import { route } from './routes.js';
import { HttpError, world } from './world.js';

export interface OpenCodeSimulatorOptions {
  seed?: number;
  port?: number;
  host?: string;
}

export interface OpenCodeSimulator {
  url: string;
  close(): Promise<void>;
}

/**
 * An `opencode serve` simulator (native-server-transports.md §2): sessions,
 * `prompt_async` (204, then the turn on the live-only `/event` stream),
 * permissions asked and answered, and abort with its double `session.idle`.
 * A prompt with `run` calls the bash tool, which asks for permission.
 */
export async function startOpenCodeSimulator(options: OpenCodeSimulatorOptions = {}): Promise<OpenCodeSimulator> {
  const w = world(new SeededIds(options.seed ?? 1));
  const server = createServer((req, res) => {
    res.sendDate = false;
    route(w, req, res).catch((err: unknown) => {
      const e = err instanceof HttpError ? err : new HttpError(500, { name: 'UnknownError', data: { message: (err as Error).message } });
      if (res.headersSent) return res.end();
      sendJson(res, e.status, e.body);
    });
  });
  const { url } = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of w.streams) res.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
