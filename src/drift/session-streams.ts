import type { Cassette } from '../cassette/index.js';
import { type CheckedEvent, jsonRpcSessions, registeredPacks, type SessionKey } from '../contracts/index.js';

/** What drift profiles of one recorded stream: its events, typed, and the one turn they make. */
export interface DriftStream {
  events: CheckedEvent[];
  turns: { start: number; end: number }[];
  /** The stream's client closed it: its end is where that client stopped reading, a race with what came next. */
  clientClosed?: boolean | undefined;
}

/** The session key of the first of a cassette's packs that checks whole JSON-RPC sessions (MCP's `Mcp-Session-Id`). */
export function sessionHeaderOf(cassette: Cassette): SessionKey | undefined {
  const packs = registeredPacks();
  for (const name of cassette.meta.packs ?? []) {
    const session = packs.find((p) => p.name === name)?.session;
    if (session) return session;
  }
  return undefined;
}

/** A server message's drift type: its method, or `result of <method>` / `error of <method>` for an answer. */
function driftType(e: CheckedEvent): string {
  if (e.type !== 'response') return e.type;
  const data = e.data as { error?: unknown; request?: { method?: unknown } };
  const method = typeof data.request?.method === 'string' ? data.request.method : 'an unknown request';
  return `${data.error === undefined ? 'result' : 'error'} of ${method}`;
}

/**
 * A JSON-RPC cassette as drift sees it: per interaction, the server's messages in their order there (an SSE stream
 * or a JSON body), each typed by what it is rather than SSE's `message`, so a result's shape is its method's. The
 * standalone GET stream is its own stream: its place among the POSTs' answers is the server's timing, not an order.
 */
export function sessionDriftStreams(cassette: Cassette, session: SessionKey): DriftStream[] {
  const bySeq = new Map<number, CheckedEvent[]>();
  for (const one of jsonRpcSessions(cassette, session))
    for (const [n, e] of one.events.entries()) {
      if (e.type.startsWith('client:')) continue;
      const seq = one.seqs[n] as number;
      const list = bySeq.get(seq) ?? [];
      list.push({ ...e, type: driftType(e) });
      bySeq.set(seq, list);
    }
  return [...bySeq.entries()].sort(([a], [b]) => a - b).map(([, events]) => ({ events, turns: [{ start: 0, end: events.length }] }));
}
