import type { WebSocket } from 'undici';
import { InfrastructureError } from '../kit/errors.js';
import { MessageLog } from '../kit/message-log.js';

export type RpcMessage = Record<string, unknown>;

/** A JSON-RPC error the app-server answered with. */
export class RpcCallError extends Error {
  constructor(
    readonly method: string,
    readonly error: { code?: number; message?: string },
  ) {
    super(`${method} failed: ${error.message ?? 'error'} (${error.code ?? '?'})`);
  }
}

/** undici's WebSocket, loaded when a probe connects, not by every command that reads the registry. */
const undiciWebSocket = async () => (await import('undici')).WebSocket;

/**
 * A client for codex app-server over WebSocket: requests numbered 1, 2, ... per
 * connection, every server message kept in arrival order so probes can wait
 * for the one they need, and server requests answered by the probe.
 */
export class CodexClient {
  private readonly log = new MessageLog<RpcMessage>();
  private nextId = 1;
  private readonly replies = new Map<number, { resolve: (m: RpcMessage) => void }>();

  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener('message', (event) => {
      let m: RpcMessage;
      try {
        m = JSON.parse(typeof event.data === 'string' ? event.data : Buffer.from(event.data as ArrayBuffer).toString('utf8')) as RpcMessage;
      } catch {
        return;
      }
      this.log.push(m);
      if (typeof m.id === 'number' && !('method' in m)) this.replies.get(m.id)?.resolve(m);
    });
    ws.addEventListener('close', () => this.log.end());
  }

  /** Every message the server sent, in arrival order. */
  get messages(): RpcMessage[] {
    return this.log.items;
  }

  /**
   * Connects and performs the handshake: initialize, then the initialized notification.
   * `WebSocketClass` defaults to undici's, which in-process interceptors (MSW) leave
   * alone; pass the global one to be served by MSW's `ws` handlers.
   */
  static async connect(url: string, WebSocketClass?: typeof WebSocket, clientName = 'tapedeck-bench'): Promise<CodexClient> {
    const ws = new (WebSocketClass ?? (await undiciWebSocket()))(url);
    ws.binaryType = 'arraybuffer';
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve(), { once: true });
      ws.addEventListener('error', () => reject(new InfrastructureError(`cannot open a WebSocket to ${url}`)), { once: true });
    });
    const client = new CodexClient(ws);
    await client.request('initialize', { clientInfo: { name: clientName, version: '0.1' }, capabilities: { experimentalApi: true } });
    client.notify('initialized');
    return client;
  }

  notify(method: string, params?: unknown): void {
    this.ws.send(JSON.stringify(params === undefined ? { method } : { method, params }));
  }

  /** Sends a request and resolves with its result; an error answer rejects with `RpcCallError`. */
  async request(method: string, params?: unknown, timeoutMs = 10_000): Promise<RpcMessage> {
    const id = this.nextId++;
    const reply = new Promise<RpcMessage>((resolve) => this.replies.set(id, { resolve }));
    this.ws.send(JSON.stringify(params === undefined ? { id, method } : { id, method, params }));
    let timer: NodeJS.Timeout | undefined;
    const m = await Promise.race([
      reply,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${method}: no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
    this.replies.delete(id);
    if (m.error) throw new RpcCallError(method, m.error as { code?: number; message?: string });
    return (m.result ?? {}) as RpcMessage;
  }

  /** Answers a request the server sent. */
  respond(id: unknown, result: unknown): void {
    this.ws.send(JSON.stringify({ id, result }));
  }

  /** The first message at or after index `from` that matches, or undefined on timeout or close. */
  waitFor(match: (m: RpcMessage) => boolean, timeoutMs: number, from = 0): Promise<RpcMessage | undefined> {
    return this.log.waitFor(match, timeoutMs, from);
  }

  async close(): Promise<void> {
    if (this.log.isEnded) return;
    this.ws.close(1000, 'done');
    await this.log.ended;
  }
}

/** The method of a notification or server request (`turn/completed`), or `response`. */
export const methodOf = (m: RpcMessage) => (typeof m.method === 'string' ? m.method : 'response');
