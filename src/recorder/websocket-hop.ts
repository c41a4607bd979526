import type { Dispatcher } from 'undici';
import type { LegacyHandler } from '../net/undici-dispatch.js';
import { UpgradeHop } from '../net/upgrade-hop.js';
import type { ProxyContext } from './proxy/exchange-parts.js';
import { relayWebSocket } from './websocket-relay.js';

/**
 * The WebSocket handshakes an in-process recorder is given (undici's `WebSocket` with it as `dispatcher`): each
 * goes through a loopback server of the recorder's own to the proxy's relay, so a session is recorded on the same
 * timeline, by the same code, as `bench proxy` records it.
 */
export class WebSocketHop {
  private readonly hop: UpgradeHop;

  constructor(
    private readonly ctx: ProxyContext,
    /** The target's origin: a handshake to another (allowed) origin goes to the relay in absolute form. */
    private readonly origin: string,
  ) {
    this.hop = new UpgradeHop((req, socket, head) => {
      const { timeline, target, log, shown } = this.ctx;
      relayWebSocket({ timeline, target, log, shown, track: (stop) => this.hop.track(stop) }, req, socket, head);
    });
  }

  /** Sends the handshake through the relay, as the proxy is sent it: `path` under the target, or another origin's URL. */
  dispatch(opts: Dispatcher.DispatchOptions, path: string, handler: Dispatcher.DispatchHandler): true {
    const fail = (err: Error) => (handler as unknown as LegacyHandler).onError?.(err);
    if (this.hop.closed) {
      queueMicrotask(() => fail(new Error('the recorder is closed: a WebSocket opened now is not recorded')));
      return true;
    }
    const origin = opts.origin === undefined ? this.origin : new URL(String(opts.origin)).origin;
    const sent = origin === this.origin ? path : `${origin}${opts.path}`;
    this.hop.url().then((url) => {
      this.ctx.agent.dispatch({ ...opts, origin: url, path: sent }, handler);
    }, fail);
    return true;
  }

  /** Ends every session under way (recorded as the proxy records its own stop) and the server. */
  close(): Promise<void> {
    return this.hop.close();
  }
}
