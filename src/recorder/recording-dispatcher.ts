import { Dispatcher } from 'undici';
import type { RedactionConfig } from '../cassette/index.js';
import { dispatchBodyBytes, type LegacyHandler } from '../net/undici-dispatch.js';
import { recordedExchange, type UnderWay, wireHeaders } from './dispatch-exchange.js';
import { endToEndHeaders } from './headers.js';
import { stoppedBy } from './proxy/exchange-parts.js';
import type { RecordingProxyOptions } from './proxy/options.js';
import { openRecording, type Recording } from './recording.js';
import { recordRequestBody } from './response-recording.js';
import { publicTarget, type TargetUrl } from './target.js';

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

/**
 * An undici Dispatcher that records in the test's process, where SnapshotAgent records: each request to the target
 * goes on to it, its answer streams back to the client as it comes, and the exchange is journaled, redacted and saved
 * by the same code as the recording proxy's. Requests to other origins pass through unrecorded.
 */
export class RecordingDispatcher extends Dispatcher {
  private readonly underWay = new Set<UnderWay>();
  private readonly done = new Set<Promise<void>>();
  private closed: Promise<void> | undefined;

  constructor(
    private readonly recording: Recording,
    private readonly target: TargetUrl,
    private readonly origin: string,
  ) {
    super();
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const route = routeOf(this.target, this.origin, opts);
    if (!route.ok || this.closed) return this.recording.ctx.agent.dispatch(opts, handler);
    const h = handler as unknown as LegacyHandler;
    const under: UnderWay = { stopReason: undefined, forwarding: undefined };
    h.onConnect?.((err) => {
      under.stopReason ??= 'client';
      under.forwarding?.abort(err ?? stoppedBy('client'));
    }, null);
    const request = { method: opts.method, path: route.path, ...(route.namedOrigin ? { origin: route.namedOrigin } : {}) };
    const body = dispatchBodyBytes(opts.body);
    const run = async () => {
      const bytes = await body;
      const interaction = this.recording.timeline.open({ ...request, headers: endToEndHeaders(wireHeaders(opts, bytes)) });
      recordRequestBody(this.recording.ctx, interaction, bytes);
      this.underWay.add(under);
      try {
        await recordedExchange(this.recording.ctx, interaction, { origin: route.origin, path: route.upstreamPath, opts, bytes }, h, under);
      } finally {
        this.underWay.delete(under);
      }
    };
    const self: Promise<void> = run()
      .catch((err) => h.onError?.(err as Error))
      .finally(() => this.done.delete(self));
    this.done.add(self);
    return true;
  }

  /** Ends what is still under way (streams as proxy-closed), then the journal; once, however often called. */
  override close(): Promise<void> {
    this.closed ??= (async () => {
      for (const u of this.underWay) {
        u.stopReason ??= 'proxy';
        u.forwarding?.abort(stoppedBy('proxy'));
      }
      await Promise.allSettled([...this.done]);
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
