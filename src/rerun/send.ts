import { decodeBody, type Interaction, readJson } from '../cassette/index.js';
import { eventType } from '../contracts/index.js';
import { SseParser } from '../sse/index.js';
import type { Exchanged, IssuedValues, StreamEvent } from './issued.js';
import type { ReadTo } from './plan.js';

// Set by fetch itself, or meaningless on a new connection; a recorded placeholder is no credential to send.
const NOT_RESENT = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'content-encoding',
  'te',
]);
const PLACEHOLDER = /<redacted:[a-z0-9_.-]+>/;

/** What came back for one request sent again. */
export interface Answer extends Exchanged {
  status?: number | undefined;
  /** A request that never got an answer: refused, reset, timed out. */
  failure?: string | undefined;
  /** The headers a recorded placeholder stood in for and that no `--header` gave. */
  dropped: string[];
}

export interface SendOptions {
  base: string;
  issued: IssuedValues;
  /** Headers given on the command line, in place of any recorded one of that name. */
  headers: Record<string, string>;
  readTo: ReadTo;
  /** Ends a stream read until the run's end (`run-end`), and everything at a stop. */
  runEnded: AbortSignal;
  /** How long an answer that reads to its end may take. */
  timeoutMs: number;
  /** Told the answer's headers as they come, before any of its body. */
  onHeaders: (headers: Record<string, string>) => void;
  /** Told each event read, as it comes. */
  onEvent: (event: StreamEvent) => void;
  /** Resolves when a stream read far enough may be closed (what its recorded close waited for has happened). */
  closeWhen: () => Promise<unknown>;
}

/** The recorded request as the new server must get it: learned values in place, placeholders dropped, given headers on top. */
function requestOf(i: Interaction, o: SendOptions): { url: string; init: RequestInit; dropped: string[] } {
  const headers: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(i.request.headers)) {
    const v = Array.isArray(value) ? value.join(', ') : String(value);
    if (NOT_RESENT.has(name.toLowerCase())) continue;
    // A placeholder the server handed out (a session token) was learned from its answer; any other is no credential.
    const live = o.issued.apply(v);
    if (PLACEHOLDER.test(live)) dropped.push(name.toLowerCase());
    else headers[name.toLowerCase()] = live;
  }
  for (const [name, value] of Object.entries(o.headers)) headers[name.toLowerCase()] = value;
  const body = i.request.body;
  const bytes =
    body === undefined
      ? undefined
      : 'json' in body
        ? JSON.stringify(o.issued.applyJson(body.json))
        : 'text' in body
          ? o.issued.apply(body.text)
          : decodeBody(body);
  return {
    url: `${o.base}${o.issued.apply(i.request.path)}`,
    init: { method: i.request.method, headers, ...(bytes === undefined ? {} : { body: bytes }) },
    dropped: dropped.filter((d) => !(d in headers)),
  };
}

/** Sends one recorded request again and reads its answer as far as the recorded client did. */
export async function sendAgain(i: Interaction, o: SendOptions): Promise<Answer> {
  const { url, init, dropped } = requestOf(i, o);
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), o.timeoutMs);
  const onRunEnd = () => stop.abort();
  if (o.readTo.kind === 'run-end') clearTimeout(timer);
  o.runEnded.addEventListener('abort', onRunEnd, { once: true });
  try {
    const res = await fetch(url, { ...init, signal: stop.signal, redirect: 'manual' });
    const headers = Object.fromEntries(res.headers);
    o.onHeaders(headers);
    const answer: Answer = { status: res.status, headers, dropped };
    if (/^text\/event-stream/i.test(headers['content-type'] ?? '') && res.body) answer.events = await readEvents(res.body, o, stop);
    else {
      const text = await res.text();
      answer.body = text === '' ? undefined : (readJson(text)?.json ?? text);
    }
    return answer;
  } catch (error) {
    return { headers: {}, dropped, failure: (error as Error).name === 'AbortError' ? 'timed out' : (error as Error).message };
  } finally {
    clearTimeout(timer);
    o.runEnded.removeEventListener('abort', onRunEnd);
  }
}

async function readEvents(
  body: ReadableStream<Uint8Array>,
  o: SendOptions,
  stop: AbortController,
): Promise<NonNullable<Exchanged['events']>> {
  const parser = new SseParser();
  const events: NonNullable<Exchanged['events']> = [];
  const to = o.readTo.kind === 'events' ? o.readTo : undefined;
  let marked = 0;
  const enough = () => to !== undefined && (marked >= to.mark.count || (marked === 0 && events.length >= to.total));
  try {
    for await (const chunk of body) {
      for (const frame of parser.push(chunk)) {
        const text = frame.kind === 'event' ? frame.data : undefined;
        const data = text === undefined ? undefined : (readJson(text)?.json ?? text);
        // Typed as the recording's events are (the event name, else the data's own type), so the two line up.
        const type = frame.kind === 'comment' ? ':comment' : eventType({ event: frame.event, data: text }, data);
        const event = { type, data, id: frame.kind === 'event' ? frame.id : undefined };
        events.push(event);
        if (type === to?.mark.type) marked++;
        o.onEvent(event);
      }
      if (enough()) {
        await o.closeWhen();
        break;
      }
    }
  } catch {
    // The stream was cut (the run's end, a timeout): what was read is the answer.
  }
  if (enough() || o.readTo.kind === 'run-end') stop.abort();
  return events;
}
