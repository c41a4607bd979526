import type { Body, Cassette, Headers, Interaction, SseItem } from '../cassette/index.js';
import { serializeSseFrame } from '../sse/index.js';
import type { Har, HarEntry, HarMessage } from './schema.js';

/** The wire text of one recorded SSE item: its own text when it kept one, else the canonical form. */
export function sseItemText(item: SseItem): string {
  if (item.raw !== undefined) return item.raw;
  if (item.comment !== undefined) return serializeSseFrame({ kind: 'comment', comment: item.comment });
  const { at: _at, after: _after, comment: _comment, raw: _raw, ...fields } = item;
  return serializeSseFrame({ kind: 'event', ...fields });
}

const headerList = (headers: Headers) =>
  Object.entries(headers).flatMap(([name, v]) => (Array.isArray(v) ? v : [v]).map((value) => ({ name, value })));

function header(headers: Headers, name: string): string | undefined {
  const v = Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(v) ? v[0] : v;
}

/** A body as HAR content: text when it is text, base64 (HAR's `encoding`) when it is bytes. */
function content(body: Body | undefined): { text?: string; encoding?: string; size: number } {
  if (body === undefined) return { size: 0 };
  if ('omitted' in body) return { size: body.omitted.bytes };
  if ('base64' in body) return { text: body.base64, encoding: 'base64', size: Buffer.from(body.base64, 'base64').length };
  const text = 'json' in body ? JSON.stringify(body.json) : body.text;
  return { text, size: Buffer.byteLength(text) };
}

/** Origin the entries' URLs are made from: the recorded target when it is a URL, else a name that can never resolve. */
function originOf(target: string): string {
  try {
    const url = new URL(target);
    if (/^(https?|wss?):$/.test(url.protocol)) return url.origin.replace(/^ws/, 'http');
  } catch {}
  return 'http://replay.tapedeck.invalid';
}

function entryOf(i: Interaction, origin: string, startMs: number): HarEntry {
  const res = i.response;
  const ws = res?.websocket;
  const stream = res?.stream;
  const url = (ws ? origin.replace(/^http/, 'ws') : origin) + i.request.path;
  const reqBody = content(i.request.body);
  const mime = res ? (header(res.headers, 'content-type') ?? (stream ? 'text/event-stream' : 'application/octet-stream')) : 'x-unknown';
  const text = stream ? { text: stream.events.map(sseItemText).join(''), size: 0 } : content(res?.body);
  if (stream) text.size = Buffer.byteLength(text.text ?? '');
  const end = i.timing.end ?? i.timing.start;
  const wait = (i.timing.headers ?? end) - i.timing.start;
  const messages: HarMessage[] | undefined = ws?.frames
    .filter((f) => f.close === undefined)
    .map((f) => {
      const binary = f.base64 !== undefined;
      const data = binary ? (f.base64 as string) : f.json !== undefined ? JSON.stringify(f.json) : (f.text ?? '');
      return { type: f.from === 'client' ? 'send' : 'receive', time: (startMs + f.at) / 1000, opcode: binary ? 2 : 1, data };
    });
  return {
    startedDateTime: new Date(startMs + i.timing.start).toISOString(),
    time: end - i.timing.start,
    request: {
      method: i.request.method,
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headerList(i.request.headers),
      queryString: [...new URL(url).searchParams].map(([name, value]) => ({ name, value })),
      ...(i.request.body
        ? {
            postData: {
              mimeType: header(i.request.headers, 'content-type') ?? 'application/octet-stream',
              text: reqBody.text ?? '',
              ...(reqBody.encoding ? { _encoding: reqBody.encoding } : {}),
            },
          }
        : {}),
      headersSize: -1,
      bodySize: reqBody.size,
    },
    response: {
      // Status 0 is how browsers write a request that got no answer.
      status: res?.status ?? 0,
      statusText: res ? '' : (i.failure?.message ?? ''),
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: res ? headerList(res.headers) : [],
      content: { mimeType: mime, ...text },
      redirectURL: (res && header(res.headers, 'location')) ?? '',
      headersSize: -1,
      bodySize: text.size,
    },
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait, receive: end - i.timing.start - wait },
    ...(ws ? { _resourceType: 'websocket', _webSocketMessages: messages } : stream ? { _resourceType: 'eventsource' } : {}),
    _tapedeck: {
      seq: i.seq,
      timing: i.timing,
      ...(res?.encoding ? { encoding: res.encoding } : {}),
      ...(i.failure ? { failure: i.failure } : {}),
      ...(stream ? { stream } : {}),
      ...(ws ? { websocket: ws } : {}),
      ...(i.request.body && 'omitted' in i.request.body ? { requestBody: i.request.body } : {}),
      ...(res?.body && 'omitted' in res.body ? { responseBody: res.body } : {}),
    },
  };
}

/**
 * A cassette as HAR 1.2: each interaction an entry (an SSE body as its wire
 * text, WebSocket frames as Chrome's `_webSocketMessages`), and what HAR has no
 * field for (seqs, event times and causes, ends) under `_tapedeck`, so an
 * import gives the cassette back.
 */
export function cassetteToHar(cassette: Cassette, creator: { name: string; version: string }): Har {
  const recorded = Date.parse(cassette.meta.recordedAt);
  const startMs = Number.isNaN(recorded) ? 0 : recorded;
  const origin = originOf(cassette.meta.target);
  return {
    log: {
      version: '1.2',
      creator,
      pages: [],
      entries: cassette.interactions.map((i) => entryOf(i, origin, startMs)),
      _tapedeck: { meta: cassette.meta },
    },
  };
}
