import { createHash, type Hash } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { sendableCloseCode, wireBytes } from '../cassette/index.js';
import { declaresNoBody } from '../net/declares-no-body.js';
import { splitAbsoluteForm } from '../net/request-target.js';
import { doorRequest } from './door-request.js';
import type { HttpAnswer, ReplayAnswer, ReplayEngine } from './engine.js';
import { LARGE_BODY } from './match-request.js';

/** The largest request body the replay server reads (a recorded body over it could not be matched anyway). */
export const MAX_REQUEST_BODY = 64 * 1024 * 1024;

/**
 * The request body, or undefined once it passes `limit` (reading stops there;
 * nothing more is held). A large body is hashed as its chunks come in, so
 * matching it by digest (`LARGE_BODY`) costs no pass over it at the end.
 */
async function readUpTo(req: IncomingMessage, limit: number): Promise<{ body: Buffer; sha256?: string } | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  let hash: Hash | undefined;
  for await (const c of req) {
    size += (c as Buffer).byteLength;
    if (size > limit) return undefined;
    chunks.push(c as Buffer);
    if (hash) hash.update(c as Buffer);
    else if (size > LARGE_BODY) {
      hash = createHash('sha256');
      for (const earlier of chunks) hash.update(earlier);
    }
  }
  return { body: Buffer.concat(chunks), ...(hash ? { sha256: hash.digest('hex') } : {}) };
}

const EMPTY = Buffer.alloc(0);

/**
 * The request's path and query. A client behind `HTTP_PROXY` sends the
 * absolute form (`GET http://host/x`): it is answered as `/x`, as its
 * recording through the proxy was made.
 */
export function requestPath(req: IncomingMessage): string {
  const url = req.url ?? '/';
  return url.startsWith('/') ? url : (splitAbsoluteForm(url)?.path ?? url);
}

/** What a log line needs of a request: its path and the headers that may repeat a secret it holds. */
const live = (req: IncomingMessage) => ({ path: requestPath(req), headers: req.headers });

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One log line per answer: what was asked and which recording answered. */
export function describeAnswer(method: string, path: string, answer: HttpAnswer): string {
  if (answer.kind === 'unmatched') return `${method} ${path} → ${answer.status} unmatched`;
  if (answer.kind === 'reset') return `${method} ${path} → ${answer.entry.cassette} #${answer.entry.seq} reset (fault)`;
  return `${method} ${path} → ${answer.entry.cassette} #${answer.entry.seq} ${answer.status}${answer.kind === 'stream' ? ' (stream)' : ''}`;
}

/**
 * Writes an engine answer to a node:http response, streams included. A
 * whole body due now is written at once, with no promise: most answers are
 * that, and a replay server should cost no more than a plain one.
 */
export function writeAnswer(answer: HttpAnswer, res: ServerResponse): Promise<void> | undefined {
  if (answer.kind === 'reset') {
    res.socket?.destroy();
    return undefined;
  }
  if (answer.kind === 'unmatched' || (answer.kind === 'response' && answer.end === 'complete' && answer.delayMs <= 0)) {
    writeWhole(answer, res);
    return undefined;
  }
  return writeLater(answer, res);
}

function writeWhole(answer: Exclude<HttpAnswer, { kind: 'stream' | 'reset' }>, res: ServerResponse): void {
  const trailers = answer.kind === 'response' ? answer.trailers : undefined;
  const sized = !trailers && (answer.kind !== 'response' || !answer.bodiless);
  res.writeHead(
    answer.status,
    wholeHead(answer.kind === 'response' ? answer.headers : JSON_HEAD, trailers, sized ? answer.body : undefined),
  );
  if (trailers) res.addTrailers(trailers);
  // A small body as a latin1 string (byte for byte the same) goes out joined to the head in one buffer; a Buffer
  // beside the head string costs node a scatter write, about 2% of a loopback round trip.
  const body = answer.body;
  if (body.byteLength > SMALL_BODY) res.end(body);
  else {
    let text = latin1.get(body);
    if (text === undefined) latin1.set(body, (text = body.toString('latin1')));
    res.end(text, 'latin1');
  }
}

const SMALL_BODY = 16 * 1024;
const JSON_HEAD: [string, string][] = [['content-type', 'application/json']];
// A recording answered again sends the same head and bytes: both are made once per answer (keyed by its arrays and buffer).
const heads = new WeakMap<[string, string][], { sizedBy: Buffer | undefined; head: string[] }>();
const latin1 = new WeakMap<Buffer, string>();

/** The head's flat list; trailers need a chunked body (no length, the names announced as the server announced them). */
function wholeHead(headers: [string, string][], trailers: [string, string][] | undefined, sizedBy: Buffer | undefined): string[] {
  const made = trailers ? undefined : heads.get(headers);
  if (made && made.sizedBy?.byteLength === sizedBy?.byteLength) return made.head;
  const head = headers.flat();
  if (trailers) return [...head, 'trailer', announce(trailers)];
  if (sizedBy) head.push('content-length', String(sizedBy.byteLength));
  heads.set(headers, { sizedBy, head });
  return head;
}

/** The `Trailer` header's value: the names of the fields to come. */
const announce = (trailers: [string, string][]) => [...new Set(trailers.map(([name]) => name))].join(', ');

async function writeLater(answer: HttpAnswer, res: ServerResponse): Promise<void> {
  const delay = answer.kind === 'response' || answer.kind === 'stream' ? (answer.delayMs ?? 0) : 0;
  if (delay > 0) await wait(delay);
  if (answer.kind === 'reset') return;
  if (answer.kind !== 'stream') {
    const headers = answer.kind === 'response' ? answer.headers : [['content-type', 'application/json'] as [string, string]];
    const end = answer.kind === 'response' ? answer.end : 'complete';
    if (end === 'complete') {
      writeWhole(answer, res);
      return;
    }
    // A body that was cut short goes out as it was: these bytes, then the break (or, if the recorded client left, silence).
    res.writeHead(answer.status, headers.flat());
    res.flushHeaders();
    if (answer.body.byteLength > 0) await new Promise((r) => res.write(answer.body, r));
    if (end === 'broken') res.destroy();
    if (end === 'malformed') writeMalformedChunk(res);
    return;
  }
  res.writeHead(answer.status, answer.trailers ? [...answer.headers.flat(), 'trailer', announce(answer.trailers)] : answer.headers.flat());
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
  if (answer.end === 'server-closed') {
    if (answer.trailers) res.addTrailers(answer.trailers);
    res.end();
  }
  // Break only once the last events are on the wire, as the recorded stream did.
  else if (answer.end === 'broken') await flushed.then(() => res.destroy());
  else if (answer.end === 'malformed') await flushed.then(() => writeMalformedChunk(res));
  // Closed by the client or the proxy when recorded: stays open until this client closes.
}

/** A fault: straight onto the socket, past node's chunked framing, a chunk-size line no HTTP parser can read; then the close. */
function writeMalformedChunk(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  socket.end('tapedeck-malformed-chunk\r\n', () => socket.destroy());
}

/**
 * Serves one node:http request from the engine. A bodiless request answered
 * whole is served in this turn (no promise, as a plain server would); a
 * promise comes back only when there is a body to read or an answer to wait for.
 */
export function serveNodeRequest(
  engine: ReplayEngine,
  req: IncomingMessage,
  res: ServerResponse,
  log?: (line: string) => void,
): Promise<void> | undefined {
  if (declaresNoBody(req)) return answerWith(engine, req, res, EMPTY, log);
  return readAndServe(engine, req, res, log);
}

function answerWith(
  engine: ReplayEngine,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  log: ((line: string) => void) | undefined,
  bodySha256?: string,
): Promise<void> | undefined {
  const request = doorRequest(req.method ?? 'GET', requestPath(req), body, () => req.headers);
  if (bodySha256) request.bodySha256 = bodySha256;
  const answer = engine.handle(request);
  if (log)
    log(answer.kind === 'unmatched' ? answer.error.message : describeAnswer(req.method ?? 'GET', engine.pathForLog(live(req)), answer));
  return writeAnswer(answer, res);
}

async function readAndServe(engine: ReplayEngine, req: IncomingMessage, res: ServerResponse, log?: (line: string) => void): Promise<void> {
  const limit = engine.maxRequestBody ?? MAX_REQUEST_BODY;
  const read = await readUpTo(req, limit);
  if (read === undefined) {
    const message = `request body over ${limit} bytes: tapedeck replay does not read it (raise --max-request-body, or maxRequestBody, to replay larger uploads)`;
    log?.(`${req.method} ${engine.pathForLog(live(req))} → 413 ${message}`);
    res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
    res.end(JSON.stringify({ error: { code: 'tapedeck_body_too_large', message } }), () => req.socket.destroy());
    return;
  }
  await answerWith(engine, req, res, read.body, log, read.sha256);
}

const handshakes = new WebSocketServer({ noServer: true });

/**
 * Serves one WebSocket upgrade from the engine: the recorded session, frames
 * released causally, client frames matched by content. A frame that matches
 * nothing is reported like an unmatched request and, in strict mode, closes
 * the socket with 1008.
 */
export function serveNodeUpgrade(
  engine: ReplayEngine,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: UpgradeOptions = {},
): void {
  const answer = engine.upgrade({ method: 'GET', path: requestPath(req), headers: req.headers, body: Buffer.alloc(0) });
  answerNodeUpgrade(engine, answer, req, socket, head, options);
}

/** Where a door's upgrades are logged, and the set of its sessions under way (to end them when it closes). */
export interface UpgradeOptions {
  log?: ((line: string) => void) | undefined;
  open?: Set<WebSocket>;
}

/** Serves an upgrade the engine has already answered: the session on this socket, or the refusal it recorded. */
export function answerNodeUpgrade(
  engine: ReplayEngine,
  answer: ReplayAnswer,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: UpgradeOptions = {},
): void {
  const log = options.log;
  if (answer.kind !== 'websocket') {
    log?.(answer.kind === 'unmatched' ? answer.error.message : describeAnswer('GET', engine.pathForLog(live(req)), answer));
    if (answer.kind === 'reset') return void socket.destroy();
    const body = answer.kind === 'stream' ? Buffer.alloc(0) : answer.body;
    socket.end(
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${body.byteLength}\r\nconnection: close\r\n\r\n${body.toString()}`,
    );
    return;
  }
  log?.(`GET ${engine.pathForLog(live(req))} → ${answer.entry.cassette} #${answer.entry.seq} 101 (websocket)`);
  const session = answer.session;
  handshakes.handleUpgrade(req, socket, head, (ws) => {
    const controller = new AbortController();
    options.open?.add(ws);
    ws.on('close', () => {
      options.open?.delete(ws);
      controller.abort();
    });
    ws.on('error', () => controller.abort());
    ws.on('message', (data: RawData, binary: boolean) => {
      const miss = session.receive(wireBytes(data), binary);
      if (!miss) return;
      engine.recordMiss(miss);
      log?.(miss.message);
      if (engine.mode === 'strict') ws.close(1008, 'tapedeck_unmatched_frame');
    });
    void (async () => {
      for await (const out of session.outgoing(controller.signal)) {
        if ('terminate' in out) return ws.terminate();
        if ('close' in out) {
          if (sendableCloseCode(out.close.code)) ws.close(out.close.code, out.close.reason);
          else ws.terminate();
          return;
        }
        ws.send(out.data, { binary: out.binary });
      }
    })().catch(() => {
      // the client left
    });
  });
}
