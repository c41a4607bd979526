import { Dispatcher } from 'undici';
import type { Interaction, RedactionConfig } from '../cassette/index.js';
import { dispatchBodyBytes, type LegacyHandler } from '../net/undici-dispatch.js';
import { recordedExchange, type UnderWay, wireHeaders } from './dispatch-exchange.js';
import { endToEndHeaders } from './headers.js';
import { type ProxyContext, stoppedBy } from './proxy/exchange-parts.js';
import type { RecordingProxyOptions } from './proxy/options.js';
import { openRecording, type Recording } from './recording.js';
import { recordRequestBody } from './response-recording.js';
import { publicTarget, type TargetUrl } from './target.js';
import { WebSocketHop } from './websocket-hop.js';

/** What the in-process recorder takes: the proxy's recording options, without the proxy's own (port, host, uploads). */
export type RecordingDispatcherOptions = Omit<RecordingProxyOptions, 'port' | 'host' | 'uploadGraceMs'>;

/** Where a request goes and how it is recorded: a path under the target's as the proxy records it (its prefix off). */
function routeOf(target: TargetUrl, targetOrigin: string, opts: Dispatcher.DispatchOptions) {
  const origin = opts.origin === targetOrigin || opts.origin === undefined ? targetOrigin : new URL(String(opts.origin)).origin;
  if (origin !== targetOrigin) return target.route(`${origin}${opts.path}`);
  const prefix = target.display.slice(origin.length);
  const path = prefix && opts.path.startsWith(`${prefix}/`) ? opts.path.slice(prefix.length) : opts.path;
  return { ok: true as const, origin, upstreamPath: opts.path, path, namedOrigin: undefined };
}

/** Opens the exchange on the timeline, records its request, and forwards it. */
function startExchange(
  ctx: ProxyContext,
  request: Omit<Interaction['request'], 'headers'>,
  to: { origin: string; path: string; opts: Dispatcher.DispatchOptions; bytes: Buffer },
  h: LegacyHandler,
  under: UnderWay,
): Promise<void> {
  const wire = wireHeaders(to.opts, to.bytes);
  const interaction = ctx.timeline.open({ ...request, headers: endToEndHeaders(wire) });
  recordRequestBody(ctx, interaction, to.bytes);
  return recordedExchange(ctx, interaction, { ...to, wire }, h, under);
}

/**
 * An undici Dispatcher that records in the test's process, where SnapshotAgent records: each request to the target
 * goes on to it, its answer streams back to the client as it comes, and the exchange is journaled, redacted and saved
 * by the same code as the recording proxy's. Requests to other origins pass through unrecorded.
 */
export class RecordingDispatcher extends Dispatcher {
  /** Each exchange under way, with what settles once it is over. */
  private readonly underWay = new Map<UnderWay, Promise<void>>();
  private closed: Promise<void> | undefined;
  private readonly webSockets: WebSocketHop;

  constructor(
    private readonly recording: Recording,
    private readonly target: TargetUrl,
    private readonly origin: string,
  ) {
    super();
    this.webSockets = new WebSocketHop(recording.ctx, origin);
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const route = routeOf(this.target, this.origin, opts);
    if (!route.ok || this.closed) return this.recording.ctx.agent.dispatch(opts, handler);
    if (opts.upgrade === 'websocket') return this.webSockets.dispatch(opts, route.path, handler);
    const h = handler as unknown as LegacyHandler;
    const under: UnderWay = { stopReason: undefined, forwarding: undefined };
    h.onConnect?.((err) => {
      under.stopReason ??= 'client';
      under.forwarding?.abort(err ?? stoppedBy('client'));
    }, null);
    const request = { method: opts.method, path: route.path, ...(route.namedOrigin ? { origin: route.namedOrigin } : {}) };
    const to = { origin: route.origin, path: route.upstreamPath, opts };
    const start = (bytes: Buffer) => startExchange(this.recording.ctx, request, { ...to, bytes }, h, under);
    // A request without a body (most are GETs) starts at once, not a turn of the event loop later.
    const body = dispatchBodyBytes(opts.body);
    let running: Promise<void>;
    try {
      running = Buffer.isBuffer(body) ? start(body) : body.then(start);
    } catch (err) {
      running = Promise.reject(err);
    }
    this.underWay.set(
      under,
      running.then(undefined, (err) => h.onError?.(err as Error)).finally(() => this.underWay.delete(under)),
    );
    return true;
  }

  /** Ends what is still under way (streams as proxy-closed), then the journal; once, however often called. */
  override close(): Promise<void> {
    this.closed ??= (async () => {
      for (const u of this.underWay.keys()) {
        u.stopReason ??= 'proxy';
        u.forwarding?.abort(stoppedBy('proxy'));
      }
      await Promise.allSettled([...this.underWay.values(), this.webSockets.close()]);
      await this.recording.close();
    })();
    return this.closed;
  }

  override destroy(): Promise<void> {
    return this.close();
  }

  /** Closes if still open, then writes the cassette atomically; resolves to the number of interactions written. */
  async save(file: string, redact?: RedactionConfig): Promise<number> {
    await this.close();
    return this.recording.write(file, redact);
  }

  /** What has been recorded so far, as a cassette. */
  cassette() {
    return this.recording.cassette();
  }

  /** Removes the journal once the cassette it stood in for is safely written. */
  async discardJournal(): Promise<void> {
    await this.recording.journal?.discard();
  }
}

/** An in-process recorder for undici and `fetch` (pass it as `dispatcher`, or install it with `setGlobalDispatcher`). */
export async function recordingDispatcher(options: RecordingDispatcherOptions): Promise<RecordingDispatcher> {
  const target = publicTarget(options.target, options.allowOrigins);
  return new RecordingDispatcher(await openRecording(options, target), target, new URL(options.target).origin);
}
