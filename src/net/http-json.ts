import type { IncomingMessage, ServerResponse } from 'node:http';

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
