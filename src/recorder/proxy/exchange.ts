import type { IncomingMessage, ServerResponse } from 'node:http';
import { contentEncodingOf, decodeContent, type Failure, type Interaction, MAX_STORED_BODY, type SseStream } from '../../cassette/index.js';
import { declaresNoBody } from '../../net/declares-no-body.js';
import { SseParser } from '../../sse/index.js';
import { BodyBuffer } from '../body-buffer.js';
import { ContentDecoder } from '../content-decoder.js';
import { forward } from '../forward.js';
import { endToEndHeaders, headerValue } from '../headers.js';
import type { Route } from '../target.js';
import type { Outcome } from '../timeline.js';
import { type ResetWatch, watchUpstreamReset } from '../upstream-resets.js';
import { type Exchange, errorText, failureCode, type ProxyContext, readAll, type StopReason, stoppedBy, toItem } from './exchange-parts.js';

const NO_BODY = Buffer.alloc(0);

/** One exchange's response as it is forwarded and recorded. */
interface Response {
  ctx: ProxyContext;
  interaction: Interaction;
  res: ServerResponse;
  stream?: SseStream | undefined;
  parser?: SseParser | undefined;
  decoder?: ContentDecoder | undefined;
  chunks: BodyBuffer;
  decoded: BodyBuffer;
  outcome: Outcome;
  resets?: ResetWatch | undefined;
  wroteBody: boolean;
  /** Stream chunks wait, stamped with their arrival, to be parsed off the forwarding path (see `Later`). */
  waiting: { chunk: Buffer; at: number; after: number }[];
  parseWaiting: () => void;
}

/**
 * Forwards one request to the target and records it: the request body (its
 * content, when compressed), the response as it streams through, and how it
 * ended, whichever end cut it.
 */
export async function recordExchange(
  ctx: ProxyContext,
  { interaction, route }: { interaction: Interaction; route: Route },
  req: IncomingMessage,
  res: ServerResponse,
  exchange: Exchange,
): Promise<void> {
  exchange.uploading = true;
  const bodyBytes = await requestBody(ctx, interaction, req, exchange);
  exchange.uploading = false;
  if (!bodyBytes) return;
  const r = response(ctx, interaction, res);
  try {
    const upstream = forward(
      ctx.agent,
      {
        origin: route.origin,
        path: route.upstreamPath,
        method: interaction.request.method,
        headers: interaction.request.headers,
        body: bodyBytes.byteLength > 0 ? bodyBytes : null,
      },
      (statusCode, rawHeaders, resume) => onHead(r, statusCode, rawHeaders, resume),
    );
    exchange.upstream = upstream;
    if (exchange.stopReason) upstream.abort(stoppedBy(exchange.stopReason));
    await onDone(r, await upstream.done);
  } catch (err) {
    onBroken(r, err, exchange.stopReason);
  } finally {
    await settle(r);
  }
}

/** The request's body, recorded; undefined when the client left during its upload (recorded as such, nothing sent upstream). */
async function requestBody(
  ctx: ProxyContext,
  interaction: Interaction,
  req: IncomingMessage,
  exchange: Exchange,
): Promise<Buffer | undefined> {
  let bodyBytes: Buffer;
  try {
    // No await for a request that declares no body: most of what a proxy forwards is GETs.
    bodyBytes = declaresNoBody(req) ? NO_BODY : await readAll(req);
  } catch (err) {
    const partial = (err as { partial?: Buffer }).partial ?? Buffer.alloc(0);
    if (partial.byteLength > 0) ctx.rawBodies.set(interaction.request, partial);
    ctx.timeline.requestBody(interaction, partial);
    const failure =
      exchange.stopReason === 'proxy'
        ? { code: 'upload_aborted', message: `the proxy stopped while the client was still uploading, after ${partial.byteLength} bytes` }
        : { code: 'client_aborted', message: `the client closed the connection during its upload, after ${partial.byteLength} bytes` };
    ctx.timeline.finish(interaction, { failure });
    return undefined;
  }
  // The server gets the bytes as sent; the recording gets the content of a compressed body, so that redaction and
  // matching see what it says (a gzip header's timestamp changes from one run of a client to the next).
  const encoding = bodyBytes.byteLength > 0 ? contentEncodingOf(headerValue(interaction.request.headers, 'content-encoding')) : undefined;
  const content = encoding && decodeContent(bodyBytes, encoding, MAX_STORED_BODY);
  if (content) interaction.request.encoding = encoding;
  const kept = content || bodyBytes;
  if (kept.byteLength > 0) ctx.rawBodies.set(interaction.request, kept);
  ctx.timeline.requestBody(interaction, kept, content ? encoding : undefined);
  return bodyBytes;
}

function response(ctx: ProxyContext, interaction: Interaction, res: ServerResponse): Response {
  const r: Response = {
    ctx,
    interaction,
    res,
    chunks: new BodyBuffer(),
    decoded: new BodyBuffer(),
    outcome: {},
    wroteBody: false,
    waiting: [],
    parseWaiting: () => {
      const waiting = r.waiting;
      r.waiting = [];
      ctx.later.delete(r.parseWaiting);
      for (const c of waiting) onContent(r, c.chunk, c.at, c.after);
    },
  };
  return r;
}

function onContent(r: Response, content: Buffer, at: number, after: number): void {
  if (r.parser) for (const frame of r.parser.push(content)) r.ctx.timeline.event(r.interaction, toItem(frame, at, after));
  else r.decoded.push(content);
}

/** The response's head: sent on to the client at once, recorded; returns what each chunk of the body goes through. */
function onHead(r: Response, statusCode: number, rawHeaders: Record<string, string | string[] | undefined>, resume: () => void) {
  const { res } = r;
  // A body that ends with the connection hides a reset as a clean end: watch its socket (kept-alive ones never end this way).
  const closeDelimited = rawHeaders['content-length'] === undefined && !/chunked/i.test(String(rawHeaders['transfer-encoding'] ?? ''));
  if (closeDelimited) r.resets = watchUpstreamReset();
  const headers = endToEndHeaders(rawHeaders);
  const isSse = (headerValue(headers, 'content-type') ?? '').toLowerCase().startsWith('text/event-stream');
  // The client is told of trailers to come, as the server told the proxy (the cassette keeps the trailers themselves).
  const announced = rawHeaders.trailer;
  res.writeHead(statusCode, announced === undefined ? headers : { ...headers, trailer: announced });
  // The head goes out with the first chunk of the body, in one write, when that chunk comes in the same
  // read as the head (a small JSON answer); otherwise right after it, so a client never waits for it.
  if (isSse) res.flushHeaders();
  else
    setImmediate(() => {
      // `headersSent` is true from `writeHead` on, written or not: only a chunk tells that the head left.
      if (!r.wroteBody && !res.destroyed) res.flushHeaders();
    });
  // The client gets the bytes as sent; the recording gets the content, decoded on the side.
  const encoding = contentEncodingOf(headerValue(headers, 'content-encoding'));
  r.ctx.tellUnreadable(r.interaction, headerValue(headers, 'content-encoding'));
  if (encoding) r.decoder = new ContentDecoder(encoding, (content, stamp) => onContent(r, content, stamp.at, stamp.after));
  if (isSse) {
    r.stream = { events: [], end: 'server-closed' };
    r.parser = new SseParser({ raw: true });
  }
  const stream = r.stream;
  r.ctx.timeline.respond(
    r.interaction,
    stream ? { status: statusCode, headers, stream, ...(encoding ? { encoding } : {}) } : { status: statusCode, headers },
  );
  return (chunk: Buffer) => onChunk(r, chunk, resume);
}

/** Each chunk goes from the upstream socket to the client's on the same synchronous path; recording waits. */
function onChunk(r: Response, chunk: Buffer, resume: () => void): boolean {
  const { res, ctx } = r;
  const at = ctx.timeline.now();
  const after = ctx.timeline.lastSeq;
  r.wroteBody = true;
  const flushed = res.destroyed || res.write(chunk);
  if (r.decoder) {
    r.decoder.push(chunk, { at, after });
    if (!r.parser) r.chunks.push(chunk);
  } else if (r.parser) {
    r.waiting.push({ chunk, at, after });
    ctx.later.add(r.parseWaiting);
  } else r.chunks.push(chunk);
  if (!flushed) res.once('drain', resume);
  return flushed;
}

/** The body ended: the server's trailers go on to the client, as a pipe would pass them, and into the recording. */
async function onDone(r: Response, rawTrailers: Record<string, string | string[] | undefined>): Promise<void> {
  const trailers = endToEndHeaders(rawTrailers);
  if (Object.keys(trailers).length > 0) {
    r.res.addTrailers(trailers);
    r.outcome.trailers = trailers;
  }
  r.parseWaiting();
  if (r.decoder) await r.decoder.end();
  const { timeline } = r.ctx;
  if (r.parser) for (const frame of r.parser.end()) timeline.event(r.interaction, toItem(frame, timeline.now(), timeline.lastSeq));
  if (r.resets?.reset) throw Object.assign(new Error('the server reset the connection'), { code: 'ECONNRESET' });
  r.outcome.at = timeline.now();
  r.res.end();
}

/** The exchange broke or was stopped: what arrived is kept, and the outcome says which end cut it. */
function onBroken(r: Response, err: unknown, reason: StopReason | undefined): void {
  const { outcome, interaction, res, ctx } = r;
  outcome.at = ctx.timeline.now();
  if (!interaction.response) {
    outcome.failure = answerUnreachable(ctx, interaction, res, err, reason);
    return;
  }
  if (r.stream) {
    outcome.end = reason === 'client' ? 'client-closed' : reason === 'proxy' ? 'proxy-closed' : 'broken';
    if (!reason) outcome.error = errorText(err);
  } else {
    const got = r.chunks.bytes;
    outcome.failure = !reason
      ? { code: failureCode(err), message: `${errorText(err)} (after ${got} bytes of the body)` }
      : reason === 'client'
        ? { code: 'client_closed', message: `the client stopped reading after ${got} bytes of the body` }
        : { code: 'proxy_closed', message: `the proxy stopped after ${got} bytes of the body` };
  }
  if (!reason) {
    ctx.log(`upstream broke ${interaction.request.method} ${ctx.shown(interaction.request)}: ${errorText(err)}`);
    res.destroy();
  } else if (reason === 'proxy') res.end();
}

/** The target answered nothing: the client gets a 502 saying why (unless it left first), the recording the failure. */
function answerUnreachable(
  ctx: ProxyContext,
  interaction: Interaction,
  res: ServerResponse,
  err: unknown,
  reason: StopReason | undefined,
): Failure {
  const code = reason ? 'client_aborted' : failureCode(err);
  const message = `${interaction.request.method} ${interaction.request.path}: ${errorText(err)}`;
  const failure = { code, message };
  if (reason) return failure;
  ctx.log(
    `upstream ${ctx.target.display} failed (${code}) for ${interaction.request.method} ${ctx.shown(interaction.request)}: ${errorText(err)}`,
  );
  const body = JSON.stringify({ error: { code, message: `tapedeck proxy: ${message}` } });
  res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
  return failure;
}

/** Whatever happened: held chunks parsed, the decoder ended, the body kept (decoded when it could be), the exchange finished. */
async function settle(r: Response): Promise<void> {
  const { outcome, interaction, decoder } = r;
  r.parseWaiting();
  if (decoder) await decoder.end();
  if (r.stream && decoder?.error) outcome.error ??= `the ${decoder.encoding} content could not be decoded: ${decoder.error.message}`;
  if (!r.stream && interaction.response && r.chunks.bytes > 0) {
    // Decoded content when the coding was valid; otherwise the bytes exactly as they came.
    const content = decoder && !decoder.error;
    const bytes = (content ? r.decoded : r.chunks).take();
    if (bytes) {
      r.ctx.rawBodies.set(interaction.response, bytes);
      outcome.bytes = bytes;
    }
    if (content && decoder) outcome.encoding = decoder.encoding;
  }
  r.ctx.timeline.finish(interaction, outcome);
}
