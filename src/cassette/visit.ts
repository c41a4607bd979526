import type { Body, Headers, Interaction, SseItem, WsFrame } from './schema.js';
import { payloadOf } from './ws-frames.js';

/**
 * How one pass over an interaction changes it, place by place; a place without
 * a hook is kept as it is. Redaction and portable paths are both such passes,
 * so the tree is walked in one place and each pass says only what it does.
 */
export interface InteractionVisitor {
  /** The request path with its query. */
  path?: ((path: string) => string) | undefined;
  /** The origin an absolute-form request named. */
  origin?: ((origin: string) => string) | undefined;
  header?: ((name: string, value: string) => string) | undefined;
  /** Request and response bodies, and each WebSocket frame's payload. */
  body?: ((body: Body) => Body) | undefined;
  event?: ((event: SseItem) => SseItem) | undefined;
  /** A response's SSE items as a whole, before `event` sees each (a secret split across items is whole only here). */
  events?: ((events: SseItem[]) => SseItem[]) | undefined;
  /** A session's WebSocket frames as a whole, before `body` and `reason` see each. */
  frames?: ((frames: WsFrame[]) => WsFrame[]) | undefined;
  /** A WebSocket close frame's reason. */
  reason?: ((text: string) => string) | undefined;
  /** Free text the recorder wrote: a failure's message. */
  note?: ((text: string) => string) | undefined;
}

function mapHeaders(headers: Headers, f: (name: string, value: string) => string): Headers {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.map((x) => f(k, x)) : f(k, v)]));
}

function mapEvents(events: SseItem[], v: InteractionVisitor): SseItem[] {
  const whole = v.events ? v.events(events) : events;
  return v.event ? whole.map((e) => (v.event as (e: SseItem) => SseItem)(e)) : whole;
}

/** The interaction with every visited place replaced by what the visitor returns; the input is never changed. */
export function visitInteraction(i: Interaction, v: InteractionVisitor): Interaction {
  const body = (b: Body | undefined) => (b && v.body ? v.body(b) : b);
  const headers = (h: Headers) => (v.header ? mapHeaders(h, v.header) : h);
  const requestBody = body(i.request.body);
  const request = {
    ...i.request,
    path: v.path ? v.path(i.request.path) : i.request.path,
    ...(i.request.origin !== undefined && v.origin ? { origin: v.origin(i.request.origin) } : {}),
    headers: headers(i.request.headers),
    ...(requestBody ? { body: requestBody } : {}),
  };
  const failure = i.failure && v.note ? { ...i.failure, message: v.note(i.failure.message) } : i.failure;
  const out = { ...i, request, ...(failure ? { failure } : {}) };
  if (!i.response) return out;
  const { body: responseBody, stream, websocket, ...head } = i.response;
  const mappedBody = body(responseBody);
  const response = {
    ...head,
    headers: headers(i.response.headers),
    ...(head.trailers ? { trailers: headers(head.trailers) } : {}),
    ...(mappedBody ? { body: mappedBody } : {}),
    ...(stream ? { stream: v.event || v.events ? { ...stream, events: mapEvents(stream.events, v) } : stream } : {}),
    ...(websocket
      ? {
          websocket:
            v.body || v.reason || v.frames
              ? {
                  ...websocket,
                  frames: (v.frames ? v.frames(websocket.frames) : websocket.frames).map((fr) => {
                    if (fr.close) return v.reason ? { ...fr, close: { ...fr.close, reason: v.reason(fr.close.reason) } } : fr;
                    const payload = payloadOf(fr);
                    if (!payload || !v.body) return fr;
                    const { json: _j, text: _t, base64: _b, ...rest } = fr;
                    return { ...rest, ...(v.body as (b: Body) => Body)(payload) };
                  }),
                }
              : websocket,
        }
      : {}),
  };
  return { ...out, response };
}

/** The items mapped: the very array given when no item changed, else a copy from the first change on. */
export function mapShared<T>(items: readonly T[], f: (item: T) => T): T[] {
  let out: T[] | undefined;
  for (let n = 0; n < items.length; n++) {
    const item = items[n] as T;
    const mapped = f(item);
    if (mapped !== item) out ??= items.slice(0, n);
    out?.push(mapped);
  }
  return out ?? (items as T[]);
}

/**
 * A JSON value with every string (and, with `key`, every object key) mapped;
 * `value` is told the key the string stands under, if any, and the key that
 * holds its object (`hosts` for `{"hosts":[{"name":…}]}`), and may return a
 * value of another type. What no mapping changed is the input's own, not a copy.
 */
export function mapJsonStrings(
  value: unknown,
  f: { value(s: string, key: string | undefined, owner: string | undefined): unknown; key?(k: string): string },
  key?: string,
  owner?: string,
): unknown {
  if (typeof value === 'string') return f.value(value, key, owner);
  if (Array.isArray(value)) return mapShared(value, (v) => mapJsonStrings(v, f, key, owner));
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    let out: [string, unknown][] | undefined;
    for (let n = 0; n < keys.length; n++) {
      const k = keys[n] as string;
      const v = record[k];
      const name = f.key ? f.key(k) : k;
      const mapped = mapJsonStrings(v, f, k, key);
      if (name !== k || mapped !== v) out ??= keys.slice(0, n).map((j) => [j, record[j]]);
      out?.push([name, mapped]);
    }
    return out ? Object.fromEntries(out) : value;
  }
  return value;
}

/** One visitor doing `first` then `then` at every place: two passes for the price of one walk and one copy. */
export function composeVisitors(first: InteractionVisitor, then: InteractionVisitor): InteractionVisitor {
  const both = <T>(a: ((x: T) => T) | undefined, b: ((x: T) => T) | undefined) => (a && b ? (x: T) => b(a(x)) : (a ?? b));
  const [h1, h2] = [first.header, then.header];
  return {
    path: both(first.path, then.path),
    origin: both(first.origin, then.origin),
    body: both(first.body, then.body),
    event: both(first.event, then.event),
    events: both(first.events, then.events),
    frames: both(first.frames, then.frames),
    note: both(first.note, then.note),
    reason: both(first.reason, then.reason),
    header: h1 && h2 ? (name, value) => h2(name, h1(name, value)) : (h1 ?? h2),
  };
}
