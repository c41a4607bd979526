import { type Body, type Cassette, frameJson, type Interaction, readJson } from '../cassette/index.js';
import { frameType, itemType } from '../contracts/index.js';

export type MarkKind = 'request' | 'event' | 'client-frame' | 'server-frame' | 'end';

/** One thing on the time axis: a request (with its duration), an SSE event, a WebSocket frame, a stream's end. */
export interface TimelineMark {
  id: number;
  lane: number;
  kind: MarkKind;
  /** Milliseconds on the cassette's clock. */
  at: number;
  /** Where a request's bar ends. */
  until?: number;
  label: string;
  /** An event's or frame's type, as the contracts name it. */
  type?: string;
  /** What a click shows: headers and body, or the event's data. */
  payload: string;
  /** A failed request, a 4xx/5xx answer, a broken stream. */
  failed?: boolean;
  /** Contract violations and drift findings about this mark, one line each. */
  notes?: { kind: 'violation' | 'drift'; text: string }[];
  /** The seq of the interaction it belongs to, and its place in the stream or frames. */
  seq: number;
  index?: number;
}

export interface TimelineLane {
  id: number;
  kind: 'requests' | 'sse' | 'websocket';
  label: string;
}

/** An `after` link: the request (or client frame) that released an event. */
export interface TimelineArrow {
  from: number;
  to: number;
}

/** One cassette's part of the page: its own clock, lanes, marks and arrows. */
export interface TimelineSection {
  name: string;
  target: string;
  spanMs: number;
  lanes: TimelineLane[];
  marks: TimelineMark[];
  arrows: TimelineArrow[];
}

// The page stays small on a big cassette: a click shows this much of a payload, and says what was cut.
const PAYLOAD_CHARS = 4000;

function clip(text: string): string {
  return text.length <= PAYLOAD_CHARS
    ? text
    : `${text.slice(0, PAYLOAD_CHARS)}\n… (${text.length - PAYLOAD_CHARS} more characters in the cassette)`;
}

function bodyText(body: Body | undefined): string {
  if (!body) return '';
  if ('json' in body) return JSON.stringify(body.json, null, 2);
  if ('text' in body) return body.text;
  if ('base64' in body) return `(${Buffer.from(body.base64, 'base64').length} bytes, base64) ${body.base64}`;
  return `(${body.omitted.bytes} bytes omitted, sha256 ${body.omitted.sha256})`;
}

function headerLines(headers: Record<string, string | string[]>): string[] {
  return Object.entries(headers).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}: ${x}`));
}

function dataText(data: string | undefined): string {
  if (data === undefined) return '';
  const read = readJson(data);
  return read ? JSON.stringify(read.json, null, 2) : data;
}

function requestPayload(i: Interaction): string {
  const req = [`${i.request.method} ${i.request.path}`, ...headerLines(i.request.headers)];
  const reqBody = bodyText(i.request.body);
  const res = i.response
    ? [`${i.response.status}`, ...headerLines(i.response.headers)]
    : [`failed: ${i.failure?.code}: ${i.failure?.message}`];
  const resBody = bodyText(i.response?.body);
  return clip([...req, ...(reqBody ? ['', reqBody] : []), '', ...res, ...(resBody ? ['', resBody] : [])].join('\n'));
}

/** Where the interaction's activity ends: its recorded end, else its last event or frame. */
function lastMoment(i: Interaction): number {
  if (i.timing.end !== undefined) return i.timing.end;
  const items = i.response?.stream?.events ?? i.response?.websocket?.frames ?? [];
  return Math.max(i.timing.start, ...items.map((x) => x.at));
}

/**
 * Lays a cassette out as lanes on its clock. A stream or WebSocket session
 * has a lane of its own; plain requests share lanes as on keep-alive
 * connections (a request takes the first lane free when it starts; the
 * cassette does not record sockets, so this is the fewest lanes that fit).
 */
export function buildSection(name: string, cassette: Cassette): TimelineSection {
  const lanes: TimelineLane[] = [];
  const marks: TimelineMark[] = [];
  const arrows: TimelineArrow[] = [];
  const requestLanes: { lane: number; free: number }[] = [];
  // Every seq a link can point at: an interaction's request, or a client frame.
  const source = new Map<number, number>();
  const pending: { mark: number; after: number; own: number }[] = [];
  const add = (m: Omit<TimelineMark, 'id'>) => {
    const mark = { id: marks.length, ...m };
    marks.push(mark);
    return mark.id;
  };
  for (const i of cassette.interactions) {
    const stream = i.response?.stream;
    const ws = i.response?.websocket;
    const until = lastMoment(i);
    let lane: number;
    if (stream || ws) {
      lane = lanes.length;
      const what = ws ? `websocket, ${ws.frames.length} frames` : `sse, ${stream?.events.length} events`;
      lanes.push({ id: lane, kind: ws ? 'websocket' : 'sse', label: `#${i.seq} ${i.request.method} ${i.request.path} (${what})` });
    } else {
      const free = requestLanes.find((r) => r.free <= i.timing.start);
      if (free) {
        lane = free.lane;
        free.free = until;
      } else {
        lane = lanes.length;
        lanes.push({ id: lane, kind: 'requests', label: `requests ${requestLanes.length + 1}` });
        requestLanes.push({ lane, free: until });
      }
    }
    const status = i.response ? `${i.response.status}` : `failed (${i.failure?.code})`;
    const own = add({
      lane,
      kind: 'request',
      at: i.timing.start,
      until,
      seq: i.seq,
      label: `#${i.seq} ${i.request.method} ${i.request.path} → ${status}`,
      payload: requestPayload(i),
      ...(i.failure || (i.response && i.response.status >= 400) ? { failed: true } : {}),
    });
    source.set(i.seq, own);
    stream?.events.forEach((item, index) => {
      const type = itemType(item);
      const mark = add({
        lane,
        kind: 'event',
        type,
        at: item.at,
        seq: i.seq,
        index,
        label: `#${i.seq} event ${index}: ${type} at ${item.at.toFixed(1)} ms`,
        payload: clip(
          [item.id === undefined ? '' : `id: ${item.id}`, item.comment === undefined ? '' : `: ${item.comment}`, dataText(item.data)]
            .filter(Boolean)
            .join('\n'),
        ),
      });
      pending.push({ mark, after: item.after, own });
    });
    ws?.frames.forEach((frame, index) => {
      const type = frameType(frame);
      const mark = add({
        lane,
        kind: frame.from === 'client' ? 'client-frame' : 'server-frame',
        type,
        at: frame.at,
        seq: i.seq,
        index,
        label: `#${i.seq} frame ${index} from the ${frame.from}: ${type} at ${frame.at.toFixed(1)} ms`,
        payload: clip(
          frameJson(frame) !== undefined
            ? JSON.stringify(frameJson(frame), null, 2)
            : (frame.text ?? (frame.close ? `close ${frame.close.code} ${frame.close.reason}` : `(base64) ${frame.base64}`)),
        ),
      });
      if (frame.seq !== undefined) source.set(frame.seq, mark);
      else pending.push({ mark, after: frame.after, own });
    });
    const end = stream?.end ?? ws?.end;
    if (end)
      add({
        lane,
        kind: 'end',
        at: until,
        seq: i.seq,
        label: `#${i.seq} ${end}${(stream?.error ?? ws?.error) ? `: ${stream?.error ?? ws?.error}` : ''}`,
        payload: `the ${ws ? 'session' : 'stream'} ended ${end} at ${until.toFixed(1)} ms`,
        ...(end === 'broken' || end === 'proxy-closed' ? { failed: true } : {}),
      });
  }
  // Links to the interaction's own request are every event of a plain stream: only links elsewhere are drawn.
  for (const p of pending) {
    const from = source.get(p.after);
    if (from !== undefined && from !== p.own) arrows.push({ from, to: p.mark });
  }
  const spanMs = Math.max(1, ...marks.map((m) => m.until ?? m.at));
  return { name, target: cassette.meta.target, spanMs, lanes, marks, arrows };
}
