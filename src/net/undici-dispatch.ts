const EMPTY = Buffer.alloc(0);

/** An undici dispatch's request body as bytes: at once for the common shapes, by reading for a stream. */
export function dispatchBodyBytes(body: unknown): Buffer | Promise<Buffer> {
  if (body === null || body === undefined) return EMPTY;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body);
  return readStream(body);
}

async function readStream(body: unknown): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of body as AsyncIterable<Uint8Array | string>) chunks.push(typeof c === 'string' ? Buffer.from(c) : Buffer.from(c));
  return Buffer.concat(chunks);
}

/** The handler undici's own `request` and `fetch` (Node's bundled one too) pass to a dispatcher: the legacy callbacks. */
export type LegacyHandler = {
  onConnect?: (abort: (err?: Error) => void, context?: unknown) => void;
  onHeaders?: (status: number, headers: Buffer[], resume: () => void, statusText: string) => boolean;
  onData?: (chunk: Buffer) => boolean;
  onComplete?: (trailers: Buffer[] | null) => void;
  onError?: (err: Error) => void;
};
