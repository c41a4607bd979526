import type { z } from 'zod';
import {
  type Body,
  type CassetteMeta,
  contentEncodingOf,
  encodeBody,
  type Headers,
  type Interaction,
  interactionSchema,
  metaSchema,
  payloadFromWire,
  type SseItem,
  type WsFrame,
} from '../cassette/index.js';
import { TapedeckError } from '../errors.js';
import { SseParser } from '../sse/index.js';
import { type Har, type HarEntry, harSchema } from './schema.js';

export class HarError extends TapedeckError {
  constructor(message: string) {
    super('har_invalid', message);
  }
}

/** Checks a parsed document is HAR, naming the first field that is not. */
export function parseHar(doc: unknown, file: string): Har {
  const result = harSchema.safeParse(doc);
  if (result.success) return result.data;
  const issue = result.error.issues[0] as z.core.$ZodIssue;
  throw new HarError(`${file}: not a HAR 1.2 file: ${issue.path.join('.') || '(top)'}: ${issue.message}`);
}

function headersOf(list: readonly { name: string; value: string }[]): Headers {
  const out: Headers = {};
  for (const { name, value } of list) {
    // HTTP/2 pseudo-headers are the request line, not headers a replay can send.
    if (name.startsWith(':')) continue;
    const key = name.toLowerCase();
    const had = out[key];
    out[key] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return out;
}

const bytesOf = (text: string, encoding: string | undefined) =>
  encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');

/** The HAR fields tapedeck's own export keeps beside the standard ones. */
interface TapedeckExtras {
  seq?: number;
  timing?: Interaction['timing'];
  encoding?: NonNullable<Interaction['response']>['encoding'];
  failure?: Interaction['failure'];
  stream?: NonNullable<Interaction['response']>['stream'];
  websocket?: NonNullable<Interaction['response']>['websocket'];
  requestBody?: Body;
  responseBody?: Body;
}

function isWebSocket(e: HarEntry): boolean {
  return e._resourceType === 'websocket' || e._webSocketMessages !== undefined || /^wss?:/.test(e.request.url);
}

function isEventStream(e: HarEntry): boolean {
  const type = e.response.content.mimeType ?? e.response.headers.find((h) => h.name.toLowerCase() === 'content-type')?.value ?? '';
  return /^text\/event-stream/i.test(type);
}

/** SSE wire text as recorded items, each kept with its own text where that differs from the canonical form. */
function sseItems(text: string, at: number, after: number): SseItem[] {
  const parser = new SseParser({ raw: true });
  return [...parser.push(text), ...parser.end()].map((frame) => {
    if (frame.kind === 'comment') return { at, after, comment: frame.comment, ...(frame.raw !== undefined ? { raw: frame.raw } : {}) };
    const { kind: _kind, ...fields } = frame;
    return { at, after, ...fields };
  });
}

export interface HarImport {
  meta: CassetteMeta;
  interactions: Interaction[];
  /** Entries of other origins, left out (a cassette records one server). */
  skipped: number;
  /** The HAR is a tapedeck export: its text is a cassette's, placeholders and all. */
  fromTapedeck: boolean;
}

/**
 * A HAR as a cassette of one origin. Entries and WebSocket messages sent are
 * numbered in time order (a client frame takes a seq, as when recording); SSE
 * events, which HAR does not time, are released by their own request at its
 * end; a server frame by the client frame before it. A tapedeck export's
 * `_tapedeck` fields give back what HAR has no field for.
 */
export function harToCassette(har: Har, options: { origin?: string; recorder: string }): HarImport {
  const entries = har.log.entries
    .filter((e) => /^(https?|wss?):/.test(e.request.url))
    .map((e) => ({ e, url: new URL(e.request.url), start: Date.parse(e.startedDateTime) }))
    .sort((a, b) => a.start - b.start);
  if (entries.length === 0) throw new HarError('the HAR holds no http(s) or ws(s) entry; record one with a page loaded');
  const sameOrigin = (u: URL) => u.origin.replace(/^ws/, 'http');
  const origin = options.origin ? sameOrigin(new URL(options.origin)) : sameOrigin((entries[0] as { url: URL }).url);
  const kept = entries.filter((x) => sameOrigin(x.url) === origin);
  const t0 = kept[0]?.start ?? 0;
  const ms = (epochMs: number) => Math.max(0, Math.round((epochMs - t0) * 1000) / 1000);
  const extras = (e: HarEntry) => (e._tapedeck ?? {}) as TapedeckExtras;
  // The seq clock: requests and client frames in time order (an export says its own seqs).
  const issued: { at: number; entry: number; message?: number }[] = [];
  kept.forEach(({ e, start }, entry) => {
    issued.push({ at: start, entry });
    e._webSocketMessages?.forEach((m, message) => {
      if (m.type === 'send') issued.push({ at: m.time * 1000, entry, message });
    });
  });
  issued.sort((a, b) => a.at - b.at || a.entry - b.entry);
  const seqOf = new Map(issued.map((x, i) => [`${x.entry}:${x.message ?? ''}`, i + 1]));
  const interactions = kept.map(({ e, url, start }, entry): Interaction => {
    const x = extras(e);
    const seq = x.seq ?? (seqOf.get(`${entry}:`) as number);
    const begin = x.timing?.start ?? ms(start);
    const end = x.timing?.end ?? Math.max(begin, ms(start + Math.max(0, e.time)));
    const headersAt = x.timing
      ? x.timing.headers
      : e.timings?.wait !== undefined && e.timings.wait >= 0
        ? begin + e.timings.wait
        : undefined;
    const timing = { start: begin, ...(headersAt !== undefined ? { headers: Math.min(headersAt, end) } : {}), end };
    const post = e.request.postData;
    const reqBody = x.requestBody ?? (post?.text ? encodeBody(bytesOf(post.text, post._encoding)) : undefined);
    const request = {
      method: e.request.method,
      path: `${url.pathname}${url.search}`,
      headers: headersOf(e.request.headers),
      ...(reqBody ? { body: reqBody } : {}),
    };
    if (e.response.status === 0) {
      const failure = x.failure ?? { code: 'upstream_error', message: e.response.statusText || 'the HAR records no response' };
      return { seq, request, failure, timing };
    }
    const headers = headersOf(e.response.headers);
    const c = e.response.content;
    let response: NonNullable<Interaction['response']>;
    if (isWebSocket(e)) {
      const frames: WsFrame[] =
        x.websocket?.frames ??
        (() => {
          let last = seq;
          return (e._webSocketMessages ?? []).map((m, message): WsFrame => {
            const at = ms(m.time * 1000);
            const payload = payloadFromWire(m.opcode === 2 ? Buffer.from(m.data, 'base64') : Buffer.from(m.data, 'utf8'), m.opcode === 2);
            if (m.type === 'receive') return { at, from: 'server', after: last, ...payload };
            last = seqOf.get(`${entry}:${message}`) as number;
            return { at, from: 'client', seq: last, after: last, ...payload };
          });
        })();
      response = { status: 101, headers, websocket: x.websocket ?? { frames, end: 'server-closed' } };
    } else if (isEventStream(e)) {
      response = {
        status: e.response.status,
        headers,
        stream: x.stream ?? { events: sseItems(c.text ?? '', end, seq), end: 'server-closed' },
      };
    } else {
      // HAR content is decoded; the header says how the server encoded it, which replay does again.
      const coding = contentEncodingOf(typeof headers['content-encoding'] === 'string' ? headers['content-encoding'] : undefined);
      if (!coding) delete headers['content-encoding'];
      const body = x.responseBody ?? (c.text ? encodeBody(bytesOf(c.text, c.encoding)) : undefined);
      response = {
        status: e.response.status,
        headers,
        ...(body ? { body } : {}),
        ...((x.encoding ?? coding) ? { encoding: x.encoding ?? coding } : {}),
      };
    }
    return interactionSchema.parse({ seq, request, response, timing, ...(x.failure ? { failure: x.failure } : {}) });
  });
  const exported = (har.log._tapedeck as { meta?: unknown } | undefined)?.meta;
  const meta = exported
    ? metaSchema.parse(exported)
    : {
        recorder: options.recorder,
        target: origin,
        recordedAt: new Date(t0).toISOString(),
        labels: { source: `har: ${har.log.creator.name} ${har.log.creator.version}` },
      };
  return {
    meta,
    interactions: interactions.sort((a, b) => a.seq - b.seq),
    skipped: entries.length - kept.length,
    fromTapedeck: exported !== undefined,
  };
}
