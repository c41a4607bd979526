import { contentEncodingOf, decodeContent, type Headers, type Interaction, MAX_STORED_BODY, type SseStream } from '../cassette/index.js';
import { SseParser } from '../sse/index.js';
import { BodyBuffer } from './body-buffer.js';
import { ContentDecoder } from './content-decoder.js';
import type { UpstreamHeaders } from './forward.js';
import { endToEndHeaders, headerValue } from './headers.js';
import { errorText, failureCode, type ProxyContext, type StopReason, toItem } from './proxy/exchange-parts.js';
import type { Outcome } from './timeline.js';

/**
 * The recording half of one response, whoever passes its bytes on (the proxy to its client's socket, the in-process
 * recorder to the client's own handler): the head, each chunk stamped with its arrival (SSE events parsed off the
 * forwarding path, compressed content decoded on the side), and how it ended.
 */
export class ResponseRecording {
  stream: SseStream | undefined;
  private parser: SseParser | undefined;
  decoder: ContentDecoder | undefined;
  readonly chunks = new BodyBuffer();
  readonly decoded = new BodyBuffer();
  readonly outcome: Outcome = {};
  /** Stream chunks wait, stamped with their arrival, to be parsed off the forwarding path (see `Later`). */
  private waiting: { chunk: Buffer; at: number; after: number }[] = [];

  constructor(
    readonly ctx: ProxyContext,
    readonly interaction: Interaction,
  ) {}

  readonly parseWaiting = (): void => {
    const waiting = this.waiting;
    this.waiting = [];
    this.ctx.later.delete(this.parseWaiting);
    for (const c of waiting) this.onContent(c.chunk, c.at, c.after);
  };

  private onContent(content: Buffer, at: number, after: number): void {
    if (this.parser) for (const frame of this.parser.push(content)) this.ctx.timeline.event(this.interaction, toItem(frame, at, after));
    else this.decoded.push(content);
  }

  /** Records the response head; returns its end-to-end headers and whether it is an SSE stream. */
  head(statusCode: number, rawHeaders: UpstreamHeaders): { headers: Headers; isSse: boolean } {
    const headers = endToEndHeaders(rawHeaders);
    const isSse = (headerValue(headers, 'content-type') ?? '').toLowerCase().startsWith('text/event-stream');
    const encoding = contentEncodingOf(headerValue(headers, 'content-encoding'));
    this.ctx.tellUnreadable(this.interaction, headerValue(headers, 'content-encoding'));
    if (encoding) this.decoder = new ContentDecoder(encoding, (content, stamp) => this.onContent(content, stamp.at, stamp.after));
    if (isSse) {
      this.stream = { events: [], end: 'server-closed' };
      this.parser = new SseParser({ raw: true });
    }
    const stream = this.stream;
    this.ctx.timeline.respond(
      this.interaction,
      stream ? { status: statusCode, headers, stream, ...(encoding ? { encoding } : {}) } : { status: statusCode, headers },
    );
    return { headers, isSse };
  }

  /** One chunk of the body, already passed on: stamped now, recorded later when it is a stream's. */
  chunk(chunk: Buffer): void {
    const { timeline, later } = this.ctx;
    const at = timeline.now();
    const after = timeline.lastSeq;
    if (this.decoder) {
      this.decoder.push(chunk, { at, after });
      if (!this.parser) this.chunks.push(chunk);
    } else if (this.parser) {
      this.waiting.push({ chunk, at, after });
      later.add(this.parseWaiting);
    } else this.chunks.push(chunk);
  }

  /** The body ended with these trailers: everything held back is parsed, and the end is stamped. */
  async done(rawTrailers: UpstreamHeaders): Promise<Headers> {
    const trailers = endToEndHeaders(rawTrailers);
    if (Object.keys(trailers).length > 0) this.outcome.trailers = trailers;
    this.parseWaiting();
    if (this.decoder) await this.decoder.end();
    const { timeline } = this.ctx;
    if (this.parser)
      for (const frame of this.parser.end()) timeline.event(this.interaction, toItem(frame, timeline.now(), timeline.lastSeq));
    this.outcome.at = timeline.now();
    return trailers;
  }
}

/**
 * The exchange broke or was stopped after its head: what arrived is kept, and the outcome says which end cut it
 * (`reason`, or the server when there is none).
 */
export function recordBroken(rec: ResponseRecording, err: unknown, reason: StopReason | undefined): void {
  const { outcome } = rec;
  outcome.at = rec.ctx.timeline.now();
  if (rec.stream) {
    outcome.end = reason === 'client' ? 'client-closed' : reason === 'proxy' ? 'proxy-closed' : 'broken';
    if (!reason) outcome.error = errorText(err);
    return;
  }
  const got = rec.chunks.bytes;
  outcome.failure = !reason
    ? { code: failureCode(err), message: `${errorText(err)} (after ${got} bytes of the body)` }
    : reason === 'client'
      ? { code: 'client_closed', message: `the client stopped reading after ${got} bytes of the body` }
      : { code: 'proxy_closed', message: `the proxy stopped after ${got} bytes of the body` };
}

/** Whatever happened: held chunks parsed, the decoder ended, the body kept (decoded when it could be), the exchange finished. */
export async function settleRecording(rec: ResponseRecording): Promise<void> {
  const { outcome, interaction, decoder } = rec;
  rec.parseWaiting();
  if (decoder) await decoder.end();
  if (rec.stream && decoder?.error) outcome.error ??= `the ${decoder.encoding} content could not be decoded: ${decoder.error.message}`;
  if (!rec.stream && interaction.response && rec.chunks.bytes > 0) {
    // Decoded content when the coding was valid; otherwise the bytes exactly as they came.
    const content = decoder && !decoder.error;
    const bytes = (content ? rec.decoded : rec.chunks).take();
    if (bytes) {
      rec.ctx.rawBodies.set(interaction.response, bytes);
      outcome.bytes = bytes;
    }
    if (content && decoder) outcome.encoding = decoder.encoding;
  }
  rec.ctx.timeline.finish(interaction, outcome);
}

/**
 * Records a request's body: the server gets the bytes as sent, the recording the content of a compressed body, so
 * that redaction and matching see what it says (a gzip header's timestamp changes from one run of a client to the next).
 */
export function recordRequestBody(ctx: ProxyContext, interaction: Interaction, bodyBytes: Buffer): void {
  const encoding = bodyBytes.byteLength > 0 ? contentEncodingOf(headerValue(interaction.request.headers, 'content-encoding')) : undefined;
  const content = encoding && decodeContent(bodyBytes, encoding, MAX_STORED_BODY);
  if (content) interaction.request.encoding = encoding;
  const kept = content || bodyBytes;
  if (kept.byteLength > 0) ctx.rawBodies.set(interaction.request, kept);
  ctx.timeline.requestBody(interaction, kept, content ? encoding : undefined);
}
