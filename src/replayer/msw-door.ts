import { HttpResponse, http, type WebSocketHandler } from 'msw';
import { doorRequest, pathOfUrl } from './door-request.js';
import { type HttpAnswer, type NamedCassette, ReplayEngine, type ReplayOptions } from './engine.js';
import { withMatchConfig } from './match-config.js';
import { cassetteWebSocketHandler } from './msw-ws-door.js';

const NO_BODY = new Uint8Array(0);

/** How fetch reports a body that broke off: `terminated`, caused by the socket closing or (a fault) an unreadable chunk. */
function terminated(end: 'broken' | 'malformed'): TypeError {
  const cause =
    end === 'malformed'
      ? Object.assign(new Error('Response does not match the HTTP/1.1 protocol (Invalid character in chunk size)'), {
          name: 'HTTPParserError',
          code: 'HPE_INVALID_CHUNK_SIZE',
        })
      : Object.assign(new Error('other side closed'), { name: 'SocketError', code: 'UND_ERR_SOCKET' });
  return new TypeError('terminated', { cause });
}

function headerRecord(from: Headers): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of from) headers[name] = value;
  return headers;
}

/** What the MSW handler answers with: a Fetch Response, streams included. */
function toResponse(answer: HttpAnswer): Response {
  // Strict: the request itself fails, so the client under test sees an error; a fault's reset fails it the same way.
  if ((answer.kind === 'unmatched' && answer.strict) || answer.kind === 'reset') return HttpResponse.error();
  if (answer.kind !== 'stream') {
    const headers = answer.kind === 'response' ? answer.headers : [['content-type', 'application/json'] as [string, string]];
    if (answer.kind !== 'response' || answer.end === 'complete') {
      // As the other doors: a whole body's length is said; a bodiless answer's recorded one is among its headers, and a
      // body with trailers came chunked (a Fetch Response has no trailers to give).
      const sized =
        answer.kind === 'response' && (answer.bodiless || answer.trailers)
          ? headers
          : [...headers, ['content-length', String(answer.body.byteLength)]];
      // An empty body is no body: with msw's interceptors on Node 20 (0.41), cancelling a mocked body never settles
      // (mswjs/interceptors#799, fixed in a release for Node 22), and the MCP SDK cancels every 202's and DELETE's.
      const body = answer.body.byteLength === 0 ? null : answer.body;
      return new HttpResponse(body, { status: answer.status, headers: sized as [string, string][] });
    }
    // Cut short when recorded: the same bytes, then the break (or an open body, if the recorded client left first).
    const end = answer.end;
    let sent = answer.body.byteLength === 0;
    const cut = new ReadableStream<Uint8Array>({
      // Erroring discards what is queued: the bytes go out on one pull, the break a turn of the loop after the next.
      async pull(stream) {
        if (!sent) {
          sent = true;
          stream.enqueue(new Uint8Array(answer.body));
        } else if (end === 'broken' || end === 'malformed') {
          await new Promise((r) => setTimeout(r, 1));
          stream.error(terminated(end));
        } else await new Promise<void>(() => {});
      },
    });
    return new HttpResponse(cut, { status: answer.status, headers });
  }
  const controller = new AbortController();
  const frames = answer.frames(controller.signal);
  const body = new ReadableStream<Uint8Array>({
    async pull(stream) {
      try {
        const { value, done } = await frames.next();
        if (!done) return stream.enqueue(new Uint8Array(value));
      } catch {
        return; // cancelled by the client
      }
      if (answer.end === 'server-closed') stream.close();
      else if (answer.end === 'broken' || answer.end === 'malformed') {
        // Erroring discards what is still queued: the break a turn of the loop after the last bytes, as off a socket.
        await new Promise((r) => setTimeout(r, 1));
        stream.error(terminated(answer.end));
      }
      // A stream the client closed when recording stays open until this client cancels.
    },
    cancel() {
      controller.abort();
    },
  });
  return new HttpResponse(body, { status: answer.status, headers: answer.headers });
}

export interface CassetteHandlers {
  handlers: (ReturnType<typeof http.all> | WebSocketHandler)[];
  engine: ReplayEngine;
  /** Whether the cassettes hold WebSocket sessions (served through MSW's `ws`, which needs a global WebSocket). */
  webSockets: boolean;
}

export interface CassetteHandlerOptions extends ReplayOptions {
  /** Where a request no recording matches goes instead of failing (`record: 'missing'`: the real server, recorded). */
  onUnmatched?: (request: Request) => Promise<Response>;
}

/** MSW handlers that answer from cassettes (HTTP, SSE and WebSocket sessions), for people who own their `setupServer`. */
export function cassetteHandlers(cassettes: readonly NamedCassette[], options: CassetteHandlerOptions = {}): CassetteHandlers {
  const { options: configured, places } = withMatchConfig(options);
  const engine = new ReplayEngine(cassettes, configured, places);
  const handler = http.all('*', async ({ request }) => {
    // A GET or HEAD has no body: no read (and no promise) for it.
    const bodyless = request.method === 'GET' || request.method === 'HEAD';
    const body = bodyless ? NO_BODY : new Uint8Array(await request.arrayBuffer());
    const answer = engine.handle(doorRequest(request.method, pathOfUrl(request.url), body, () => headerRecord(request.headers)));
    if (answer.kind === 'unmatched' && options.onUnmatched) {
      engine.withdrawMiss(answer.error);
      return options.onUnmatched(
        new Request(request.url, { method: request.method, headers: request.headers, body: bodyless ? null : body }),
      );
    }
    // Realtime and scaled timing hold a plain answer as long as the recording took, as the other doors do (and a fault's latency).
    const delay = answer.kind === 'response' || answer.kind === 'stream' ? (answer.delayMs ?? 0) : 0;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    return toResponse(answer);
  });
  const webSockets = cassettes.some((c) => c.cassette.interactions.some((i) => i.response?.websocket));
  return { handlers: webSockets ? [handler, cassetteWebSocketHandler(engine)] : [handler], engine, webSockets };
}

/**
 * Lets a client cancel a mocked body: MSW tees every mocked response for its `response:mocked` event, and a
 * branch's cancel waits for the other branch (mswjs/interceptors#799, msw 2.15 on Node 20), so the openai SDK's
 * retry after a 429 or 503 hung. Cancelling MSW's copy also stops it buffering a long stream nobody reads.
 * `useCassette` does this for its own server; call it on a `setupServer` of yours.
 */
export function releaseMockedBodies(server: {
  events: { on(event: 'response:mocked', listener: (e: { response: Response }) => void): void };
}): void {
  server.events.on('response:mocked', ({ response }) => {
    response.body?.cancel().catch(() => {});
  });
}
