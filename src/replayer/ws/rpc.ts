import { isRecord, type WsFrame, type WsPayload } from '../../cassette/index.js';

/** A JSON-RPC message carries an `id` next to `method` (a request) or to `result`/`error` (a response). */
export const rpcId = (v: unknown): unknown => (isRecord(v) && ('method' in v || 'result' in v || 'error' in v) ? v.id : undefined);

/** A payload as it is compared: JSON-RPC ids left out, since they are matched by position, not value. */
export function comparable(p: WsPayload): unknown {
  if (!('json' in p) || !isRecord(p.json) || rpcId(p.json) === undefined) return p;
  const { id: _id, ...rest } = p.json;
  return { json: rest };
}

/** The ids a live client gave its requests in place of the recorded ones, so answers carry the live ids. */
export class RpcIds {
  /** Recorded request id → the id this client sent in its place. */
  private readonly ids = new Map<string, unknown>();

  /** Notes the live id of a client request matched to a recorded one. */
  remember(recorded: WsFrame, live: WsPayload): void {
    const recordedId = 'json' in live ? rpcId(recorded.json) : undefined;
    if (recordedId !== undefined && isRecord(recorded.json) && 'method' in recorded.json)
      this.ids.set(JSON.stringify(recordedId), (live as { json: Record<string, unknown> }).json.id);
  }

  /** For a JSON-RPC response, the live id of the request it answers. */
  answers(p: WsPayload): string | undefined {
    if (!('json' in p) || !isRecord(p.json) || 'method' in p.json) return undefined;
    const id = rpcId(p.json);
    if (id === undefined) return undefined;
    const key = JSON.stringify(id);
    return JSON.stringify(this.ids.has(key) ? this.ids.get(key) : id);
  }

  /** A recorded response to a client request carries the id the live client used for it. */
  withLiveId(p: WsPayload): WsPayload {
    if (!('json' in p) || !isRecord(p.json) || 'method' in p.json) return p;
    const id = rpcId(p.json);
    const key = JSON.stringify(id);
    return id !== undefined && this.ids.has(key) ? { json: { ...p.json, id: this.ids.get(key) } } : p;
  }
}
