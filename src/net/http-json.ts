import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** Answers with a JSON body and its exact length. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** Reads a request body as a JSON object (empty is `{}`); anything else throws what `invalid` makes of the text. */
export async function readJsonObject(req: IncomingMessage, invalid: (text: string) => Error): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // answered below, in the server's own error shape
  }
  throw invalid(text);
}

/** A request's body as UTF-8 text. */
export async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * An HTTP server for a simulator: no Date header (recordings stay byte-stable), and a handler that throws answers
 * 500 with the error's message as JSON (or ends a response already under way).
 */
export function simulatorServer(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Server {
  return createServer((req, res) => {
    res.sendDate = false;
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) res.end();
      else sendJson(res, 500, { error: (err as Error).message });
    });
  });
}
