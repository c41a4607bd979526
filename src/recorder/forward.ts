import type { Dispatcher } from 'undici';

/** The response head as undici parses it: lowercase names, a repeated header as a list. */
export type UpstreamHeaders = Record<string, string | string[] | undefined>;

/**
 * Told the response head; returns what takes each chunk of the body. A chunk
 * taker that returns false has the upstream socket paused until it calls `resume`.
 */
export type OnHead = (statusCode: number, headers: UpstreamHeaders, resume: () => void) => (chunk: Buffer) => boolean;

/** One request on its way upstream. */
export interface Forwarding {
  /** Resolves with the trailers (most often none) once the whole response has passed; rejects when it failed or was aborted. */
  readonly done: Promise<UpstreamHeaders>;
  /** Stops the exchange upstream, whenever called; `done` then rejects with the reason. */
  abort(reason: Error): void;
}

/**
 * Sends one request through an undici dispatcher and hands its response over
 * as it comes. A bare dispatch handler, not undici's `stream()`: no abort
 * signal, no Writable, no async resource per request, which were most of what
 * the recording proxy added to a forwarded request's latency.
 */
export function forward(
  dispatcher: Dispatcher,
  request: { origin: string; path: string; method: string; headers: Record<string, string | string[]>; body: Buffer | null },
  onHead: OnHead,
): Forwarding {
  let controller: Dispatcher.DispatchController | undefined;
  let stoppedFor: Error | undefined;
  let take: ((chunk: Buffer) => boolean) | undefined;
  let settle!: { resolve: (trailers: UpstreamHeaders) => void; reject: (err: Error) => void };
  const done = new Promise<UpstreamHeaders>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const handler: Dispatcher.DispatchHandler = {
    onRequestStart(c) {
      controller = c;
      if (stoppedFor) c.abort(stoppedFor);
    },
    onResponseStart(c, statusCode, headers) {
      // 1xx answers are the server's and the connection's business, not the exchange's.
      if (statusCode < 200) return;
      take = onHead(statusCode, headers as UpstreamHeaders, () => c.resume());
    },
    onResponseData(c, chunk) {
      if (take && !take(chunk)) c.pause();
    },
    onResponseEnd(_c, trailers) {
      settle.resolve(trailers as UpstreamHeaders);
    },
    onResponseError(_c, err) {
      settle.reject(err);
    },
  };
  dispatcher.dispatch(
    {
      origin: request.origin,
      path: request.path,
      method: request.method as Dispatcher.HttpMethod,
      headers: request.headers,
      body: request.body,
    },
    handler,
  );
  return {
    done,
    abort(reason) {
      if (stoppedFor) return;
      stoppedFor = reason;
      controller?.abort(reason);
    },
  };
}
