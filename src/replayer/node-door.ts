import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ReplayAnswer, ReplayEngine } from './engine.js';

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One log line per answer: what was asked and which recording answered. */
export function describeAnswer(method: string, path: string, answer: ReplayAnswer): string {
  if (answer.kind === 'unmatched') return `${method} ${path} → ${answer.status} unmatched`;
  return `${method} ${path} → ${answer.entry.cassette} #${answer.entry.seq} ${answer.status}${answer.kind === 'stream' ? ' (stream)' : ''}`;
}

/** Writes an engine answer to a node:http response, streams included. */
export async function writeAnswer(answer: ReplayAnswer, res: ServerResponse): Promise<void> {
  if (answer.kind !== 'stream') {
    if (answer.kind === 'response' && answer.delayMs > 0) await wait(answer.delayMs);
    const headers = answer.kind === 'response' ? answer.headers : [['content-type', 'application/json'] as [string, string]];
    res.writeHead(answer.status, [...headers.flat(), 'content-length', String(answer.body.byteLength)]);
    if (answer.kind === 'response' && answer.breaks) {
      res.write(answer.body, () => res.destroy());
      return;
    }
    res.end(answer.body);
    return;
  }
  res.writeHead(answer.status, answer.headers.flat());
  res.flushHeaders();
  const controller = new AbortController();
  res.on('close', () => controller.abort());
  let flushed: Promise<unknown> = Promise.resolve();
  try {
    for await (const chunk of answer.frames(controller.signal)) {
      flushed = new Promise((r) => res.write(chunk, r));
      if (res.writableNeedDrain) await new Promise((r) => res.once('drain', r));
    }
  } catch {
    return; // the client left
  }
  if (answer.end === 'server-closed') res.end();
  // Break only once the last events are on the wire, as the recorded stream did.
  else if (answer.end === 'broken') await flushed.then(() => res.destroy());
  // Closed by the client or the proxy when recorded: stays open until this client closes.
}

/** Serves one node:http request from the engine. */
export async function serveNodeRequest(
  engine: ReplayEngine,
  req: IncomingMessage,
  res: ServerResponse,
  log?: (line: string) => void,
): Promise<ReplayAnswer> {
  const body = await readAll(req);
  const answer = engine.handle({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body });
  log?.(answer.kind === 'unmatched' ? `${answer.error.message}` : describeAnswer(req.method ?? 'GET', req.url ?? '/', answer));
  await writeAnswer(answer, res);
  return answer;
}
