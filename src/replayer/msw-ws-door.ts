import { ws } from 'msw';
import { UsageError } from '../errors.js';
import type { ReplayEngine } from './engine.js';

/** Why a session could not be served; MSW's client side allows only 1000 and 3000–4999. */
const CLOSE_UNMATCHED = { code: 4404, reason: 'tapedeck_unmatched_upgrade' };
const CLOSE_UNMATCHED_FRAME = { code: 4008, reason: 'tapedeck_unmatched_frame' };

/** A recorded close code MSW can send, or 1000 for those it cannot (1005, 1006, 1008, …). */
const mswCloseCode = (code: number) => (code === 1000 || (code >= 3000 && code <= 4999) ? code : 1000);

const bytesOf = async (data: unknown): Promise<{ bytes: Buffer; binary: boolean }> =>
  typeof data === 'string'
    ? { bytes: Buffer.from(data, 'utf8'), binary: false }
    : data instanceof Blob
      ? { bytes: Buffer.from(await data.arrayBuffer()), binary: true }
      : { bytes: Buffer.from(data as ArrayBuffer), binary: true };

/**
 * The MSW `ws` handler for every recorded WebSocket session: the session that
 * matches the URL is played to the client, server frames released once the
 * client frame they followed has arrived, client frames matched by content.
 * A connection or frame that matches nothing is added to `engine.misses` and,
 * in strict mode, the socket closes (4404 or 4008: MSW cannot send 1008).
 */
export function cassetteWebSocketHandler(engine: ReplayEngine) {
  return ws.link(/^wss?:\/\//).addEventListener('connection', ({ client }) => {
    const url = client.url;
    const answer = engine.upgrade({ method: 'GET', path: `${url.pathname}${url.search}`, headers: {}, body: Buffer.alloc(0) });
    if (answer.kind !== 'websocket') {
      // Unmatched (already in engine.misses), or a recorded refusal MSW cannot express as an HTTP status.
      client.close(CLOSE_UNMATCHED.code, CLOSE_UNMATCHED.reason);
      return;
    }
    const session = answer.session;
    const controller = new AbortController();
    // Blob payloads are read asynchronously; a chain keeps client frames in arrival order.
    let inbox = Promise.resolve();
    client.addEventListener('message', (event) => {
      inbox = inbox.then(async () => {
        const { bytes, binary } = await bytesOf(event.data);
        const miss = session.receive(bytes, binary);
        if (!miss) return;
        engine.recordMiss(miss);
        if (engine.mode === 'strict') client.close(CLOSE_UNMATCHED_FRAME.code, CLOSE_UNMATCHED_FRAME.reason);
      });
    });
    client.addEventListener('close', () => controller.abort());
    void (async () => {
      for await (const out of session.outgoing(controller.signal)) {
        // MSW has no drop without a close frame: a fault's reset closes with 1006, the code a client sees for one.
        if ('terminate' in out) return client.close(1006, '');
        if ('close' in out) return client.close(mswCloseCode(out.close.code), out.close.reason);
        client.send(out.binary ? new Uint8Array(out.data as Buffer) : (out.data as string));
      }
    })().catch(() => {
      // the client left
    });
  });
}

/** True when this process has a global WebSocket for MSW to intercept (Node 22, or Node 20 with --experimental-websocket). */
export const canInterceptWebSockets = () => typeof (globalThis as { WebSocket?: unknown }).WebSocket === 'function';

/** The error for cassettes holding WebSocket sessions where MSW cannot reach them. */
export function noGlobalWebSocket(): UsageError {
  return new UsageError(
    'these cassettes hold WebSocket sessions, and MSW can only intercept the global WebSocket, which Node 20 lacks: run node with --experimental-websocket (vitest: NODE_OPTIONS=--experimental-websocket), set globalThis.WebSocket = (await import("undici")).WebSocket before the tests, or serve them with bench replay',
  );
}
