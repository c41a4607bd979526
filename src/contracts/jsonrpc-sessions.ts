import { type Body, type Cassette, type Interaction, readJson } from '../cassette/index.js';
import type { CheckedEvent } from './selectors.js';

/**
 * One JSON-RPC session over HTTP (MCP's Streamable HTTP): every message both sides sent, from all the
 * interactions that carry its id, in the order they were on the wire. Client messages are typed
 * `client:<method>` (`client:response` for an answer to a server's request), server messages `<method>` or
 * `response`; a response carries the request it answers as `request` (not enumerable: payload schemas do not
 * see it), so a rule can scope it by what the request held (its progress token).
 */
export interface SessionUnderCheck {
  /** The session id the server issued. */
  key: string;
  /** The first interaction of the session (its `initialize`). */
  first: Interaction;
  events: CheckedEvent[];
  /** Per event, the seq of the interaction it was in, and its place there (the SSE position; -1 for a body). */
  seqs: number[];
  positions: number[];
  /** The interactions of the session, in recorded order. */
  interactions: Interaction[];
}

interface Placed {
  at: number;
  seq: number;
  position: number;
  event: CheckedEvent;
}

/** The value of a header as one string (the first, when it was sent twice). */
function headerValue(headers: Record<string, string | string[]> | undefined, name: string): string | undefined {
  const v = headers?.[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Whether an object is meant as a JSON-RPC message: one with any of its members. A plain JSON answer on the same
 * header (A2A's agent card) is no message of the session; a message that lost its `jsonrpc` still is, and is wrong.
 */
function isMessage(m: object): boolean {
  return ['jsonrpc', 'id', 'method', 'result', 'error'].some((k) => k in m);
}

/** The JSON-RPC messages a body holds: one, a batch, or none (no JSON, or nothing JSON-RPC). */
function messagesOf(body: Body | undefined): Record<string, unknown>[] {
  if (!body) return [];
  const json = 'json' in body ? body.json : 'text' in body ? readJson(body.text)?.json : undefined;
  const list = Array.isArray(json) ? json : [json];
  return list.filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null && !Array.isArray(m) && isMessage(m));
}

function typeOf(message: Record<string, unknown>, side: 'client' | 'server'): string {
  const name = typeof message.method === 'string' ? message.method : 'response';
  return side === 'client' ? `client:${name}` : name;
}

/** Every message of one interaction, placed on the cassette's clock. */
function placed(i: Interaction): Placed[] {
  const out: Placed[] = [];
  for (const m of messagesOf(i.request.body))
    out.push({ at: i.timing.start, seq: i.seq, position: -1, event: { type: typeOf(m, 'client'), data: m } });
  const response = i.response;
  for (const m of messagesOf(response?.body))
    out.push({ at: i.timing.headers ?? i.timing.start, seq: i.seq, position: -1, event: { type: typeOf(m, 'server'), data: m } });
  for (const [position, item] of (response?.stream?.events ?? []).entries()) {
    // A priming event (an id, no data) carries no message.
    const json = item.data ? readJson(item.data)?.json : undefined;
    if (typeof json !== 'object' || json === null) continue;
    for (const m of Array.isArray(json) ? json : [json])
      if (typeof m === 'object' && m !== null && isMessage(m))
        out.push({ at: item.at, seq: i.seq, position, event: { type: typeOf(m as Record<string, unknown>, 'server'), data: m } });
  }
  return out;
}

/**
 * What makes interactions one session: the header whose value they share, and who issues its values: the server
 * (MCP's `Mcp-Session-Id`, in the `initialize` answer) or the client (a header it sends on every request, such as
 * A2A's `A2A-Version`: then every request of the recording that carries it is one exchange, checked whole).
 */
export interface SessionKey {
  header: string;
  issuedBy?: 'server' | 'client' | undefined;
}

/**
 * The sessions of a cassette: interactions grouped by the id `header` carries, for every id issued (by the server,
 * in a response's header: the `initialize` answer; or by the client, on its requests). A request naming an id the server never issued, or one the
 * transport refused with a 4xx (404 for a session over, or a server's 400 for an id it no longer knows), is no session's.
 */
export function jsonRpcSessions(cassette: Cassette, session: SessionKey): SessionUnderCheck[] {
  const { header, issuedBy = 'server' } = session;
  // A 4xx is the transport refusing the request (the session ended, or never was): the session never took it, and
  // an id such a refusal echoes (the Python SDK sends the unknown one back) was never issued. Whether the refusal is
  // the 404 the spec asks for is the session probe's to judge, not an ordering rule's.
  const taken = cassette.interactions.filter((i) => !((i.response?.status ?? 0) >= 400 && (i.response?.status ?? 0) < 500));
  const issued = new Map<string, Interaction[]>();
  for (const i of taken) {
    const key = headerValue(issuedBy === 'server' ? i.response?.headers : i.request.headers, header);
    if (key !== undefined && !issued.has(key)) issued.set(key, []);
  }
  for (const i of taken) {
    const key = headerValue(i.request.headers, header) ?? headerValue(i.response?.headers, header);
    if (key !== undefined) issued.get(key)?.push(i);
  }
  const out: SessionUnderCheck[] = [];
  for (const [key, interactions] of issued) {
    // An id only ever sent back on a request that named another: nothing of that session was recorded.
    if (interactions.length === 0) continue;
    const all = interactions.flatMap(placed).sort((a, b) => a.at - b.at || a.seq - b.seq);
    const events = withRequests(all.map((p) => p.event));
    out.push({
      key,
      first: interactions[0] as Interaction,
      events,
      seqs: all.map((p) => p.seq),
      positions: all.map((p) => p.position),
      interactions,
    });
  }
  return out;
}

/** JSON-RPC's codes for a request refused as it was written: Invalid Request, Invalid params. */
const REFUSED_AS_INVALID = new Set([-32600, -32602]);

/**
 * Gives each server response the client request it answers, by id, as `request`: a copy, the recording untouched.
 * A request the server refused as invalid (-32600, -32602) is marked `refused`: its payload is the server's to
 * judge, and it did (a conformance probe sends such a request on purpose).
 */
function withRequests(events: CheckedEvent[]): CheckedEvent[] {
  const asked = new Map<string, unknown>();
  const at = new Map<string, number>();
  for (const [n, e] of events.entries()) {
    const m = e.data as { id?: unknown; method?: unknown; error?: { code?: unknown } };
    if (m.id === undefined) continue;
    if (e.type.startsWith('client:') && typeof m.method === 'string') {
      asked.set(JSON.stringify(m.id), m);
      at.set(JSON.stringify(m.id), n);
    } else if (e.type === 'response') {
      const asker = at.get(JSON.stringify(m.id));
      if (asker !== undefined && REFUSED_AS_INVALID.has(m.error?.code as number))
        events[asker] = { ...(events[asker] as CheckedEvent), refused: true };
      const data = { ...(m as object) };
      Object.defineProperty(data, 'request', { value: asked.get(JSON.stringify(m.id)), enumerable: false });
      events[n] = { ...e, data };
    }
  }
  return events;
}
