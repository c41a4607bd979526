import { Agent, type Dispatcher } from 'undici';
import type { WebSocket } from 'ws';
import type { LegacyHandler } from '../net/undici-dispatch.js';
import { UpgradeHop } from '../net/upgrade-hop.js';
import type { ReplayAnswer, ReplayEngine } from './engine.js';
import { answerNodeUpgrade } from './node-door.js';

/** Tells the hop's server which answer a handshake was given: the engine chose it in the door, where misses are told. */
const HOP_HEADER = 'x-tapedeck-hop';

/**
 * The undici door's WebSocket handshakes (undici's `WebSocket` given the door as `dispatcher`). The engine answers
 * each in the door, so a miss goes to `onUnmatched` as a request's does; a recorded session is then served, as
 * `bench replay` serves it, on a loopback server of the door's own, since undici wants a real socket back.
 */
export class UndiciWebSocketDoor {
  private readonly answers = new Map<string, ReplayAnswer>();
  private readonly open = new Set<WebSocket>();
  private readonly agent = new Agent();
  private next = 0;
  private readonly hop = new UpgradeHop((req, socket, head) => {
    const id = String(req.headers[HOP_HEADER]);
    const answer = this.answers.get(id);
    this.answers.delete(id);
    if (answer) answerNodeUpgrade(this.engine, answer, req, socket, head, { open: this.open });
    else socket.destroy();
  });

  constructor(
    private readonly engine: ReplayEngine,
    private readonly onUnmatched: Dispatcher | undefined,
  ) {}

  /** Answers one handshake; `headers` are the request's, as the door reads them for matching. */
  dispatch(
    opts: Dispatcher.DispatchOptions,
    headers: Record<string, string | string[] | undefined>,
    handler: Dispatcher.DispatchHandler,
  ): true {
    const fail = (err: Error) => queueMicrotask(() => (handler as unknown as LegacyHandler).onError?.(err));
    if (this.hop.closed) {
      fail(new Error('the cassette dispatcher is closed: a WebSocket opened now is not replayed'));
      return true;
    }
    const answer = this.engine.upgrade({ method: 'GET', path: opts.path, headers, body: Buffer.alloc(0) });
    if (answer.kind === 'unmatched' && this.onUnmatched) {
      this.engine.withdrawMiss(answer.error);
      this.onUnmatched.dispatch(opts, handler);
      return true;
    }
    const id = String(++this.next);
    this.answers.set(id, answer);
    this.hop.url().then(
      (url) => this.agent.dispatch({ ...opts, origin: url, headers: withHeader(opts.headers, HOP_HEADER, id) }, handler),
      (err: Error) => {
        // The handshake never reaches the hop, so the answer set aside for it would stay.
        this.answers.delete(id);
        fail(err);
      },
    );
    return true;
  }

  /** Ends every session under way, the server and its connection. */
  async close(): Promise<void> {
    for (const ws of this.open) ws.terminate();
    this.answers.clear();
    await this.hop.close();
    await this.agent.close();
  }
}

/** A dispatch's headers (an object, a flat list or pairs) with one more. */
function withHeader(
  headers: Dispatcher.DispatchOptions['headers'],
  name: string,
  value: string,
): NonNullable<Dispatcher.DispatchOptions['headers']> {
  if (!headers) return { [name]: value };
  if (Array.isArray(headers)) return [...headers, name, value];
  if (Symbol.iterator in headers) return [...(headers as Iterable<[string, string]>), [name, value]] as Iterable<[string, string]>;
  return { ...(headers as Record<string, string>), [name]: value };
}
