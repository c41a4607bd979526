import { Dispatcher, errors } from 'undici';
import { dispatchBodyBytes, type LegacyHandler } from '../net/undici-dispatch.js';
import { doorRequest } from './door-request.js';
import { type HttpAnswer, type NamedCassette, ReplayEngine, type ReplayOptions } from './engine.js';
import { withMatchConfig } from './match-config.js';
import { UndiciWebSocketDoor } from './undici-ws-door.js';

const rawHeaders = new WeakMap<[string, string][], Buffer[]>();
const rawWithLength = new WeakMap<[string, string][], { length: number; raw: Buffer[] }>();
const CONTENT_LENGTH = Buffer.from('content-length');

function flatHeaders(pairs: [string, string][], length?: number): Buffer[] {
  let raw = rawHeaders.get(pairs);
  if (!raw) {
    raw = pairs.flatMap(([k, v]) => [Buffer.from(k), Buffer.from(v)]);
    rawHeaders.set(pairs, raw);
  }
  if (length === undefined) return raw;
  const sized = rawWithLength.get(pairs);
  if (sized?.length === length) return sized.raw;
  const withLength = [...raw, CONTENT_LENGTH, Buffer.from(String(length))];
  rawWithLength.set(pairs, { length, raw: withLength });
  return withLength;
}

function headerRecord(raw: unknown): Record<string, string | string[] | undefined> {
  if (!raw) return {};
  if (Array.isArray(raw)) {
    const out: Record<string, string> = {};
    for (let i = 0; i + 1 < raw.length; i += 2) out[String(raw[i]).toLowerCase()] = String(raw[i + 1]);
    return out;
  }
  return Object.fromEntries(Object.entries(raw as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
}

/** What undici raises when a body breaks off: the socket closed, or (a fault) a chunk its parser cannot read. */
const breakError = (end: 'broken' | 'malformed') =>
  end === 'malformed'
    ? // The types give the constructor a single argument; undici's own takes the code second, as its parser calls it.
      new (errors.HTTPParserError as unknown as new (message: string, code: string) => Error)(
        'Response does not match the HTTP/1.1 protocol (Invalid character in chunk size)',
        'INVALID_CHUNK_SIZE',
      )
    : new errors.SocketError('other side closed');

export interface CassetteDispatcherOptions extends ReplayOptions {
  /** Where a request no recording matches goes instead of failing (`record: 'missing'`: an in-process recorder). */
  onUnmatched?: Dispatcher;
}

/**
 * An undici Dispatcher that answers from cassettes: for code that calls
 * undici's `request`/`fetch` directly, which MSW on Node 20 does not see.
 */
export class CassetteDispatcher extends Dispatcher {
  readonly engine: ReplayEngine;
  private readonly onUnmatched: Dispatcher | undefined;
  /** Made by the first WebSocket handshake: a replay of HTTP alone starts no server. */
  private webSockets: UndiciWebSocketDoor | undefined;

  constructor(cassettes: readonly NamedCassette[], options: CassetteDispatcherOptions = {}) {
    super();
    const { onUnmatched, ...replay } = options;
    const { options: configured, places } = withMatchConfig(replay);
    this.engine = new ReplayEngine(cassettes, configured, places);
    this.onUnmatched = onUnmatched;
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (opts.upgrade === 'websocket') {
      this.webSockets ??= new UndiciWebSocketDoor(this.engine, this.onUnmatched);
      return this.webSockets.dispatch(opts, headerRecord(opts.headers), handler);
    }
    const h = handler as unknown as LegacyHandler;
    // An AbortController costs more than the rest of a plain answer: made only for streams.
    const abort: { controller?: AbortController; aborted: boolean } = { aborted: false };
    h.onConnect?.((err) => {
      abort.aborted = true;
      abort.controller?.abort(err ?? new errors.RequestAbortedError());
    }, null);
    const fail = (err: Error) => {
      if (!abort.aborted) h.onError?.(err);
    };
    const run = (body: Buffer) => {
      const answer = this.engine.handle(doorRequest(opts.method, opts.path, body, () => headerRecord(opts.headers)));
      if (answer.kind === 'unmatched' && this.onUnmatched) {
        this.engine.withdrawMiss(answer.error);
        // The body was read here: what goes on carries its bytes, not the spent stream.
        this.onUnmatched.dispatch(opts.body == null ? opts : { ...opts, body }, handler);
        return undefined;
      }
      if (answer.kind === 'stream') abort.controller = new AbortController();
      return deliver(answer, h, abort.controller?.signal);
    };
    // Answer on the next tick, as a socket would, without a promise chain for bodiless requests.
    const body = dispatchBodyBytes(opts.body);
    if (body instanceof Promise) body.then(run).catch(fail);
    else
      process.nextTick(() => {
        try {
          const delivered = run(body);
          if (delivered) delivered.catch(fail);
        } catch (err) {
          fail(err as Error);
        }
      });
    return true;
  }

  /** Ends the WebSocket sessions under way, if any were opened. */
  override async close(): Promise<void> {
    await this.webSockets?.close();
  }

  override async destroy(): Promise<void> {
    await this.webSockets?.close();
  }
}

/** Plain answers complete synchronously; delayed answers and streams return a promise. */
function deliver(answer: HttpAnswer, h: LegacyHandler, signal: AbortSignal | undefined): Promise<void> | undefined {
  if (answer.kind === 'unmatched' && answer.strict) throw answer.error;
  const delay = answer.kind === 'response' || answer.kind === 'stream' ? (answer.delayMs ?? 0) : 0;
  if (delay > 0) return new Promise<void>((r) => setTimeout(r, delay)).then(() => deliverNow(answer, h, signal));
  return deliverNow(answer, h, signal);
}

function deliverNow(answer: HttpAnswer, h: LegacyHandler, signal: AbortSignal | undefined): Promise<void> | undefined {
  // A fault's reset: the connection drops before any header, as a socket's would.
  if (answer.kind === 'reset') throw new errors.SocketError('other side closed');
  if (answer.kind === 'stream') return deliverStream(answer, h, signal);
  return deliverPlain(answer, h);
}

function deliverPlain(answer: Exclude<HttpAnswer, { kind: 'stream' | 'reset' }>, h: LegacyHandler): Promise<void> | undefined {
  const headers = answer.kind === 'response' ? answer.headers : [['content-type', 'application/json'] as [string, string]];
  const end = answer.kind === 'response' ? answer.end : 'complete';
  const trailers = answer.kind === 'response' ? answer.trailers : undefined;
  // A body with trailers came chunked, with no length.
  const sized = end === 'complete' && !trailers && !(answer.kind === 'response' && answer.bodiless);
  h.onHeaders?.(answer.status, flatHeaders(headers, sized ? answer.body.byteLength : undefined), () => {}, '');
  if (answer.body.byteLength > 0) h.onData?.(answer.body);
  // The recorded client stopped reading: the body stays open until this client gives up too.
  if (end === 'client-closed') return undefined;
  if (end === 'complete') {
    h.onComplete?.(trailers ? flatHeaders(trailers) : []);
    return undefined;
  }
  // The break comes after the bytes have been read, as it would off a socket (an error in the same tick is lost).
  return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
    throw breakError(end);
  });
}

async function deliverStream(
  answer: Extract<HttpAnswer, { kind: 'stream' }>,
  h: LegacyHandler,
  signal: AbortSignal | undefined,
): Promise<void> {
  const resume = () => {};
  if (!signal) throw new Error('a stream needs an abort signal');
  h.onHeaders?.(answer.status, flatHeaders(answer.headers), resume, '');
  for await (const chunk of answer.frames(signal)) h.onData?.(chunk);
  // As for a plain answer: the break after the bytes were read, not in the same tick (which loses them).
  if (answer.end === 'broken' || answer.end === 'malformed') {
    await new Promise<void>((resolve) => setImmediate(resolve));
    throw breakError(answer.end);
  }
  if (answer.end === 'server-closed') return h.onComplete?.(answer.trailers ? flatHeaders(answer.trailers) : []);
  await new Promise((resolve) => signal.addEventListener('abort', resolve));
}

/** An undici Dispatcher serving the given cassettes. */
export function cassetteDispatcher(cassettes: readonly NamedCassette[], options: CassetteDispatcherOptions = {}): CassetteDispatcher {
  return new CassetteDispatcher(cassettes, options);
}
