import { performance } from 'node:perf_hooks';
import { type Body, type ContentEncoding, encodeContent, type Headers, type Interaction, restoreBody } from '../cassette/index.js';
import type { BodyEnd, Entry, EntryInfo, ReplayAnswer, ReplayOptions } from './answer-types.js';
import { type Echoes, restoreEchoes } from './echoes.js';
import { encodeStream } from './encode-stream.js';
import type { StreamCut } from './faults/index.js';
import { type FrameText, parsesAsJson, streamFrames } from './sse-frames.js';

/** What an answer is made with: how recorded text reads for this client, the timing, and a fuzzer's reframing. */
export interface AnswerText extends FrameText {
  reframe: ReplayOptions['reframe'];
}

/** The recorded answer to a plain request (not an upgrade), with the values it echoes given back. */
export function recordedAnswer(entry: Entry, text: AnswerText, echoes: Echoes | undefined, cut?: StreamCut): ReplayAnswer {
  const i = entry.interaction;
  const info = { cassette: entry.name, seq: i.seq };
  if (i.response?.websocket) return websocketOnly(info);
  if (!i.response) {
    const message = `tapedeck replay: recorded upstream failure (${i.failure?.code}): ${i.failure?.message ?? ''}`;
    const body = Buffer.from(JSON.stringify({ error: { code: i.failure?.code ?? 'upstream_error', message } }));
    return { kind: 'failure', entry: info, status: 502, body };
  }
  const encoding = i.response.encoding;
  const { headers, bodiless, trailers, body: prepared } = (entry.prepared ??= prepare(i, text));
  const stream = i.response.stream;
  const { timing } = text;
  if (!stream) {
    const body = echoes ? bodyBytes(i.response.body, encoding, text, echoes) : prepared;
    const delayMs = timing.kind === 'instant' ? 0 : timing.factor * ((i.timing.end ?? i.timing.start) - i.timing.start);
    return { kind: 'response', entry: info, status: i.response.status, headers, body, delayMs, end: bodyEnd(i), bodiless, trailers };
  }
  const servedAt = performance.now();
  const frames = (signal: AbortSignal) => {
    const own = streamFrames(entry, stream.events, servedAt, signal, text, echoes, cut);
    const framed = text.reframe ? text.reframe(own, info) : own;
    return encoding ? encodeStream(framed, encoding) : framed;
  };
  return { kind: 'stream', entry: info, status: i.response.status, headers, frames, end: stream.end, trailers };
}

/** A plain request to a recorded WebSocket session: 426, saying how to connect. */
function websocketOnly(info: EntryInfo): ReplayAnswer {
  const message = 'this recording is a WebSocket session; connect with a WebSocket client (bench replay serves it)';
  const body = Buffer.from(JSON.stringify({ error: { code: 'tapedeck_websocket_only', message } }));
  const headers: [string, string][] = [['content-type', 'application/json']];
  return { kind: 'response', entry: info, status: 426, headers, body, delayMs: 0, end: 'complete', bodiless: false };
}

/** How a recorded plain body ended; a body too big to keep has no bytes to give: the status and headers, then the break. */
function bodyEnd(i: Interaction): BodyEnd {
  const omitted = i.response?.body !== undefined && 'omitted' in i.response.body;
  return omitted ? 'broken' : !i.failure ? 'complete' : i.failure.code === 'client_closed' ? 'client-closed' : 'broken';
}

/** Response headers and body bytes, computed once per entry: they never change. */
function prepare(i: Interaction, text: AnswerText): NonNullable<Entry['prepared']> {
  const response = i.response as NonNullable<Interaction['response']>;
  const status = response.status;
  const bodiless = !response.stream && (i.request.method === 'HEAD' || status < 200 || status === 204 || status === 304);
  const trailers = response.trailers;
  return {
    headers: headersOf(response.headers, bodiless, text),
    body: response.stream ? Buffer.alloc(0) : bodyBytes(response.body, response.encoding, text),
    bodiless,
    trailers: trailers && Object.keys(trailers).length > 0 ? headersOf(trailers, false, text) : undefined,
  };
}

/**
 * The recorded headers with placeholders filled. A body's content-length is
 * left to the door (the body served may differ from the one recorded); a
 * bodiless answer's is kept: it names the size of what a GET would get.
 */
function headersOf(headers: Headers, bodiless: boolean, text: AnswerText): [string, string][] {
  const out: [string, string][] = [];
  const add = (name: string, value: string | string[]) => {
    if (typeof value === 'string') out.push([name, text.fromPlaceholders(value)]);
    else for (const v of value) out.push([name, text.fromPlaceholders(v)]);
  };
  for (const name of Object.keys(headers)) if (name !== 'content-length') add(name, headers[name] as string | string[]);
  // Kept last, as the recorder writes it: node mangles a content-disposition that follows a content-length.
  const length = headers['content-length'];
  if (bodiless && length !== undefined) add('content-length', length);
  return out;
}

/** A recorded body as the client gets it: placeholders restored, encoded again when the server had encoded it. */
function bodyBytes(body: Body | undefined, encoding: ContentEncoding | undefined, text: AnswerText, echoes?: Echoes): Buffer {
  let bytes = restoreBody(body, text.fromPlaceholders);
  if (echoes && body && ('json' in body || 'text' in body)) {
    const json = 'json' in body || parsesAsJson(body.text);
    bytes = Buffer.from(restoreEchoes(bytes.toString('utf8'), echoes, json));
  }
  return encoding && bytes.byteLength > 0 ? encodeContent(bytes, encoding) : bytes;
}
