import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Failure, Interaction } from '../../cassette/index.js';
import { declaresNoBody } from '../../net/declares-no-body.js';
import { forward } from '../forward.js';
import { ResponseRecording, recordBroken, recordRequestBody, settleRecording } from '../response-recording.js';
import type { Route } from '../target.js';
import { type ResetWatch, watchUpstreamReset } from '../upstream-resets.js';
import { type Exchange, errorText, failureCode, type ProxyContext, readAll, type StopReason, stoppedBy } from './exchange-parts.js';

const NO_BODY = Buffer.alloc(0);

/** One exchange's response as it is forwarded and recorded. */
interface Response {
  ctx: ProxyContext;
  rec: ResponseRecording;
  res: ServerResponse;
  resets?: ResetWatch | undefined;
  wroteBody: boolean;
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
  const r: Response = { ctx, rec: new ResponseRecording(ctx, interaction), res, wroteBody: false };
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
    await settleRecording(r.rec);
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
  recordRequestBody(ctx, interaction, bodyBytes);
  return bodyBytes;
}

/** The response's head: sent on to the client at once, recorded; returns what each chunk of the body goes through. */
function onHead(r: Response, statusCode: number, rawHeaders: Record<string, string | string[] | undefined>, resume: () => void) {
  const { res } = r;
  // A body that ends with the connection hides a reset as a clean end: watch its socket (kept-alive ones never end this way).
  const closeDelimited = rawHeaders['content-length'] === undefined && !/chunked/i.test(String(rawHeaders['transfer-encoding'] ?? ''));
  if (closeDelimited) r.resets = watchUpstreamReset();
  const { headers, isSse } = r.rec.head(statusCode, rawHeaders);
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
  return (chunk: Buffer) => onChunk(r, chunk, resume);
}

/** Each chunk goes from the upstream socket to the client's on the same synchronous path; recording waits. */
function onChunk(r: Response, chunk: Buffer, resume: () => void): boolean {
  const { res } = r;
  r.wroteBody = true;
  const flushed = res.destroyed || res.write(chunk);
  r.rec.chunk(chunk);
  if (!flushed) res.once('drain', resume);
  return flushed;
}

/** The body ended: the server's trailers go on to the client, as a pipe would pass them, and into the recording. */
async function onDone(r: Response, rawTrailers: Record<string, string | string[] | undefined>): Promise<void> {
  const trailers = await r.rec.done(rawTrailers);
  if (Object.keys(trailers).length > 0) r.res.addTrailers(trailers);
  if (r.resets?.reset) throw Object.assign(new Error('the server reset the connection'), { code: 'ECONNRESET' });
  r.res.end();
}

/** The exchange broke or was stopped: what arrived is kept, and the outcome says which end cut it. */
function onBroken(r: Response, err: unknown, reason: StopReason | undefined): void {
  const { rec, res, ctx } = r;
  const { interaction } = rec;
  if (!interaction.response) {
    rec.outcome.at = ctx.timeline.now();
    rec.outcome.failure = answerUnreachable(ctx, interaction, res, err, reason);
    return;
  }
  recordBroken(rec, err, reason);
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
