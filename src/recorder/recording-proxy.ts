import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, errors as undiciErrors } from 'undici';
import {
  type Body,
  CASSETTE_VERSION,
  type Cassette,
  type CassetteMeta,
  contentEncodingOf,
  decodeContent,
  type Failure,
  type Interaction,
  interactionPreparer,
  MAX_STORED_BODY,
  type MachineFolders,
  makeRedactor,
  type PreparedInteraction,
  portableInteraction,
  portablePass,
  type RedactionConfig,
  type Redactor,
  type SseItem,
  type SseStream,
  unreadableCoding,
  writeCassetteStream,
} from '../cassette/index.js';
import { declaresNoBody } from '../net/declares-no-body.js';
import { listen } from '../net/listen.js';
import { type SseFrame, SseParser } from '../sse/index.js';
import { TAPEDECK_VERSION } from '../version.js';
import { BodyBuffer, storedBody } from './body-buffer.js';
import { ContentDecoder } from './content-decoder.js';
import { type Forwarding, forward } from './forward.js';
import { endToEndHeaders, headerValue } from './headers.js';
import { JournalWriter } from './journal/index.js';
import { Later } from './later.js';
import { SaveAhead } from './save-ahead.js';
import { publicTarget, type TargetUrl } from './target.js';
import { type Outcome, Timeline } from './timeline.js';
import { type ResetWatch, watchUpstreamReset } from './upstream-resets.js';
import { prepareWakeUps } from './wake-up.js';
import { warmUpForwarding } from './warm-up.js';
import { relayWebSocket } from './websocket-relay.js';

export interface RecordingProxyOptions {
  /** Base URL of the server to record; a path prefix is kept. */
  target: string;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Address to bind; loopback unless the caller asks otherwise. */
  host?: string;
  /** Free labels written to the cassette's meta (harness, probe, ...). */
  labels?: Record<string, string>;
  /** Receives one line per notable event (an unreachable target, a broken stream). */
  log?: (line: string) => void;
  /** How long to wait for upstream response headers, in ms (default 60 000). */
  headersTimeoutMs?: number;
  /** The machine whose folders and host name become placeholders (default this one's). */
  folders?: MachineFolders;
  /** How meta describes the target (the default is its URL without credentials). */
  describedAs?: string | undefined;
  /** Contract packs written to meta. */
  packs?: string[] | undefined;
  /**
   * An append-only journal of everything captured, written as it happens
   * (redacted with `redact`), so a killed recorder loses nothing: see `readJournal`.
   */
  journal?: { file: string; redact?: RedactionConfig | undefined } | undefined;
}

export interface RecordingProxy {
  readonly url: string;
  readonly port: number;
  /** What has been recorded so far, as a cassette. */
  cassette(): Cassette;
  /** Ends open exchanges, stops listening and flushes the journal to disk; once, however often called. */
  stop(): Promise<void>;
  /** Ends open streams as `proxy-closed`, stops listening and returns the final cassette; the journal stays until `discardJournal`. */
  close(): Promise<Cassette>;
  /**
   * Closes if still open, then writes the cassette atomically one interaction
   * at a time (memory stays near what the recording holds); resolves to the number written.
   */
  save(file: string, redact?: RedactionConfig): Promise<number>;
  /** How many interactions have been recorded so far. */
  readonly recorded: number;
  /** Removes the journal once the cassette it stood in for is safely written. */
  discardJournal(): Promise<void>;
  /** The journal could not be written (a full disk, say): only the clean save will hold the recording. */
  readonly journalError: Error | undefined;
}

type StopReason = 'client' | 'proxy';

/** Why an exchange stopped early, once it has, and its request upstream, once it left. */
interface Exchange {
  stopReason: StopReason | undefined;
  upstream: Forwarding | undefined;
}

function stoppedBy(reason: StopReason): Error {
  return new Error(reason === 'client' ? 'the client went away' : 'the proxy is stopping');
}

/** Two redaction configurations that redact alike (the same object, or the same settings). */
const sameConfig = (a: RedactionConfig | undefined, b: RedactionConfig | undefined) =>
  a === b || JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** How long a stop waits for a client's close already on its way before it ends the stream itself. */
const CLIENT_CLOSE_GRACE_MS = 200;

function toItem(frame: SseFrame, at: number, after: number): SseItem {
  if (frame.kind === 'comment') return { at, after, comment: frame.comment, ...(frame.raw !== undefined ? { raw: frame.raw } : {}) };
  const { kind: _kind, ...fields } = frame;
  return { at, after, ...fields };
}

function failureCode(err: unknown): string {
  if (err instanceof undiciErrors.HeadersTimeoutError) return 'upstream_timeout';
  const code = (err as { code?: string; cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH') return 'upstream_unreachable';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'upstream_reset';
  return 'upstream_error';
}

function errorText(err: unknown): string {
  const e = err as Error & { cause?: Error };
  return e.cause?.message ? `${e.message}: ${e.cause.message}` : e.message;
}

const NO_BODY = Buffer.alloc(0);

/** The whole request body; a client that leaves mid-upload rejects with what had arrived as `partial`. */
async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch (err) {
    throw Object.assign(new Error((err as Error).message), { partial: Buffer.concat(chunks) });
  }
  if (!req.complete) throw Object.assign(new Error('aborted'), { partial: Buffer.concat(chunks) });
  return Buffer.concat(chunks);
}

/**
 * Starts a reverse proxy that forwards every request to `target` unchanged and
 * records the traffic on one timeline. Response chunks reach the client as
 * soon as they arrive; SSE events are parsed on the fly, never buffered.
 */
export async function startRecordingProxy(options: RecordingProxyOptions): Promise<RecordingProxy> {
  const target: TargetUrl = publicTarget(options.target);
  const recordedAt = new Date().toISOString();
  const meta: CassetteMeta = {
    recorder: `tapedeck ${TAPEDECK_VERSION}`,
    target: options.describedAs ?? target.display,
    recordedAt,
    ...(options.labels && Object.keys(options.labels).length > 0 ? { labels: { ...options.labels } } : {}),
    ...(options.packs ? { packs: [...options.packs] } : {}),
  };
  const journal =
    options.journal &&
    (await JournalWriter.create(options.journal.file, meta, { redact: options.journal.redact, folders: options.folders }));
  // A recording bound for a file is prepared for its save as it goes, with the redaction the journal uses.
  const prepare = options.journal && interactionPreparer(options.journal.redact, portablePass(options.folders));
  const saveAhead = prepare && new SaveAhead((i) => prepare(() => stored(i)));
  const timeline = new Timeline(journal ? (entry) => journal.add(entry) : undefined, saveAhead);
  const log = options.log ?? (() => {});
  // Log lines end up in CI output: a path shows with its secrets (a key in the query, a header's token repeated
  // in the path) replaced, as the recording will have them. Built on first use: most recordings log nothing.
  let forLog: Redactor | undefined;
  const shown = (request: Interaction['request']) =>
    (forLog ??= makeRedactor(options.journal?.redact)).request({ path: request.path, headers: request.headers, body: '' }).path;
  const agent = new Agent({
    headersTimeout: options.headersTimeoutMs ?? 60_000,
    bodyTimeout: 0,
    keepAliveTimeout: 10_000,
  });
  const active = new Map<Promise<void>, (reason: StopReason) => void>();
  const later = new Later(journal ? (batch) => journal.batch(batch) : undefined);
  // Bodies stay raw bytes while recording; choosing JSON, text or base64 waits for a snapshot.
  const rawBodies = new WeakMap<object, Buffer | Body>();
  let closing = false;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const interaction = timeline.open({
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: endToEndHeaders(req.headersDistinct),
    });
    const exchange: Exchange = { stopReason: undefined, upstream: undefined };
    const stop = (reason: StopReason) => {
      exchange.stopReason ??= reason;
      exchange.upstream?.abort(stoppedBy(reason));
    };
    res.on('close', () => {
      if (!res.writableFinished) stop('client');
    });
    const self = handleExchange(interaction, req, res, exchange);
    active.set(self, stop);
    try {
      await self;
    } finally {
      active.delete(self);
    }
  }

  async function handleExchange(interaction: Interaction, req: IncomingMessage, res: ServerResponse, exchange: Exchange): Promise<void> {
    let bodyBytes: Buffer;
    try {
      // No await for a request that declares no body: most of what a proxy forwards is GETs.
      bodyBytes = declaresNoBody(req) ? NO_BODY : await readAll(req);
    } catch (err) {
      // The client left during its upload: what arrived is kept, and nothing went upstream.
      const partial = (err as { partial?: Buffer }).partial ?? Buffer.alloc(0);
      if (partial.byteLength > 0) rawBodies.set(interaction.request, partial);
      timeline.requestBody(interaction, partial);
      timeline.finish(interaction, {
        failure: {
          code: 'client_aborted',
          message: `the client closed the connection during its upload, after ${partial.byteLength} bytes`,
        },
      });
      return;
    }
    // The server gets the bytes as sent; the recording gets the content of a compressed body, so that redaction and
    // matching see what it says (a gzip header's timestamp changes from one run of a client to the next).
    const encoding = bodyBytes.byteLength > 0 ? contentEncodingOf(headerValue(interaction.request.headers, 'content-encoding')) : undefined;
    const content = encoding && decodeContent(bodyBytes, encoding, MAX_STORED_BODY);
    if (content) interaction.request.encoding = encoding;
    const kept = content || bodyBytes;
    if (kept.byteLength > 0) rawBodies.set(interaction.request, kept);
    timeline.requestBody(interaction, kept, content ? encoding : undefined);

    let stream: SseStream | undefined;
    let parser: SseParser | undefined;
    let decoder: ContentDecoder | undefined;
    const chunks = new BodyBuffer();
    const decoded = new BodyBuffer();
    const outcome: Outcome = {};
    let resets: ResetWatch | undefined;
    let wroteBody = false;
    const onContent = (content: Buffer, at: number, after: number) => {
      if (parser) for (const frame of parser.push(content)) timeline.event(interaction, toItem(frame, at, after));
      else decoded.push(content);
    };
    // Stream chunks wait, stamped with their arrival, to be parsed off the forwarding path (see `Later`).
    let waiting: { chunk: Buffer; at: number; after: number }[] = [];
    const parseWaiting = () => {
      const chunks = waiting;
      waiting = [];
      later.delete(parseWaiting);
      for (const c of chunks) onContent(c.chunk, c.at, c.after);
    };
    try {
      const upstream = forward(
        agent,
        {
          ...target.upstream(interaction.request.path),
          method: interaction.request.method,
          headers: interaction.request.headers,
          body: bodyBytes.byteLength > 0 ? bodyBytes : null,
        },
        (statusCode, rawHeaders, resume) => {
          // A body that ends with the connection hides a reset as a clean end: watch its socket (kept-alive ones never end this way).
          const closeDelimited =
            rawHeaders['content-length'] === undefined && !/chunked/i.test(String(rawHeaders['transfer-encoding'] ?? ''));
          if (closeDelimited) resets = watchUpstreamReset();
          const headers = endToEndHeaders(rawHeaders);
          const isSse = (headerValue(headers, 'content-type') ?? '').toLowerCase().startsWith('text/event-stream');
          // The client is told of trailers to come, as the server told the proxy (the cassette keeps the trailers themselves).
          const announced = rawHeaders.trailer;
          res.writeHead(statusCode, announced === undefined ? headers : { ...headers, trailer: announced });
          // The head goes out with the first chunk of the body, in one write, when that chunk comes in the same
          // read as the head (a small JSON answer); otherwise right after it, so a client never waits for it.
          if (isSse) res.flushHeaders();
          else
            setImmediate(() => {
              // `headersSent` is true from `writeHead` on, written or not: only a chunk tells that the head left.
              if (!wroteBody && !res.destroyed) res.flushHeaders();
            });
          // The client gets the bytes as sent; the recording gets the content, decoded on the side.
          const encoding = contentEncodingOf(headerValue(headers, 'content-encoding'));
          tellUnreadable(interaction, headerValue(headers, 'content-encoding'));
          if (encoding) decoder = new ContentDecoder(encoding, (content, stamp) => onContent(content, stamp.at, stamp.after));
          if (isSse) {
            stream = { events: [], end: 'server-closed' };
            parser = new SseParser({ raw: true });
          }
          timeline.respond(
            interaction,
            stream ? { status: statusCode, headers, stream, ...(encoding ? { encoding } : {}) } : { status: statusCode, headers },
          );
          // Each chunk goes from the upstream socket to the client's on the same synchronous path.
          return (chunk) => {
            const at = timeline.now();
            const after = timeline.lastSeq;
            wroteBody = true;
            const flushed = res.destroyed || res.write(chunk);
            if (decoder) {
              decoder.push(chunk, { at, after });
              if (!parser) chunks.push(chunk);
            } else if (parser) {
              waiting.push({ chunk, at, after });
              later.add(parseWaiting);
            } else chunks.push(chunk);
            if (!flushed) res.once('drain', resume);
            return flushed;
          };
        },
      );
      exchange.upstream = upstream;
      if (exchange.stopReason) upstream.abort(stoppedBy(exchange.stopReason));
      const trailers = endToEndHeaders(await upstream.done);
      // The server's trailers go on to the client, as a pipe would pass them, and into the recording.
      if (Object.keys(trailers).length > 0) {
        res.addTrailers(trailers);
        outcome.trailers = trailers;
      }
      parseWaiting();
      if (decoder) await decoder.end();
      if (parser) for (const frame of parser.end()) timeline.event(interaction, toItem(frame, timeline.now(), timeline.lastSeq));
      if (resets?.reset) throw Object.assign(new Error('the server reset the connection'), { code: 'ECONNRESET' });
      outcome.at = timeline.now();
      res.end();
    } catch (err) {
      outcome.at = timeline.now();
      const reason = exchange.stopReason;
      if (!interaction.response) {
        outcome.failure = recordUnreachable(interaction, res, err, reason);
        return;
      }
      if (stream) {
        outcome.end = reason === 'client' ? 'client-closed' : reason === 'proxy' ? 'proxy-closed' : 'broken';
        if (!reason) outcome.error = errorText(err);
      } else {
        // A body cut short keeps what arrived; the failure says which end cut it.
        const got = chunks.bytes;
        outcome.failure = !reason
          ? { code: failureCode(err), message: `${errorText(err)} (after ${got} bytes of the body)` }
          : reason === 'client'
            ? { code: 'client_closed', message: `the client stopped reading after ${got} bytes of the body` }
            : { code: 'proxy_closed', message: `the proxy stopped after ${got} bytes of the body` };
      }
      if (!reason) {
        log(`upstream broke ${interaction.request.method} ${shown(interaction.request)}: ${errorText(err)}`);
        res.destroy();
      } else if (reason === 'proxy') {
        res.end();
      }
    } finally {
      parseWaiting();
      if (decoder) await decoder.end();
      if (stream && decoder?.error) outcome.error ??= `the ${decoder.encoding} content could not be decoded: ${decoder.error.message}`;
      if (!stream && interaction.response && chunks.bytes > 0) {
        // Decoded content when the coding was valid; otherwise the bytes exactly as they came.
        const content = decoder && !decoder.error;
        const bytes = (content ? decoded : chunks).take();
        if (bytes) {
          rawBodies.set(interaction.response, bytes);
          outcome.bytes = bytes;
        }
        if (content && decoder) outcome.encoding = decoder.encoding;
      }
      timeline.finish(interaction, outcome);
    }
  }

  const toldOf = new Set<string>();
  /** Once per coding: a body tapedeck cannot decode is saved as it came, and nothing in it is redacted. */
  function tellUnreadable(interaction: Interaction, contentEncoding: string | undefined): void {
    const coding = unreadableCoding(contentEncoding);
    if (!coding || toldOf.has(coding)) return;
    toldOf.add(coding);
    log(
      `${interaction.request.method} ${shown(interaction.request)}: the response is in ${coding}, a content coding tapedeck cannot decode here; its body is saved as it came, and nothing in it is redacted (have the client ask for gzip or br, e.g. without ${coding} in its Accept-Encoding)`,
    );
  }

  function recordUnreachable(interaction: Interaction, res: ServerResponse, err: unknown, reason: StopReason | undefined): Failure {
    const code = reason ? 'client_aborted' : failureCode(err);
    const message = `${interaction.request.method} ${interaction.request.path}: ${errorText(err)}`;
    const failure = { code, message };
    if (reason) return failure;
    log(`upstream ${target.display} failed (${code}) for ${interaction.request.method} ${shown(interaction.request)}: ${errorText(err)}`);
    const body = JSON.stringify({ error: { code, message: `tapedeck proxy: ${message}` } });
    res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return failure;
  }

  const server = createServer((req, res) => {
    if (closing) {
      res.writeHead(503, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ error: { code: 'proxy_closing', message: 'tapedeck proxy is shutting down' } }));
      return;
    }
    handle(req, res).catch((err) => {
      log(
        `internal error on ${req.method} ${shown({ method: req.method ?? 'GET', path: req.url ?? '/', headers: endToEndHeaders(req.headersDistinct) })}: ${errorText(err)}`,
      );
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  const sockets = new Set<() => void>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (closing || (req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
      socket.destroy();
      return;
    }
    relayWebSocket(
      {
        timeline,
        target,
        log,
        shown,
        track: (stop) => {
          sockets.add(stop);
          return () => sockets.delete(stop);
        },
      },
      req,
      socket,
      head,
    );
  });
  let bound: { port: number; url: string };
  try {
    await Promise.all([prepareWakeUps(), warmUpForwarding()]);
    bound = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  } catch (err) {
    await journal?.discard();
    throw err;
  }
  const { port, url } = bound;

  const cassette = (): Cassette => {
    // Chunks still held back belong in the snapshot.
    later.run();
    return {
      version: CASSETTE_VERSION,
      meta: structuredClone(meta),
      interactions: Array.from(finalInteractions(), (i) => structuredClone(i)),
    };
  };

  /** An interaction with its bodies encoded, made afresh each time. */
  function stored(i: Interaction): Interaction {
    const requestBody = storedBody(rawBodies.get(i.request));
    const responseBody = i.response && storedBody(rawBodies.get(i.response));
    return {
      ...i,
      request: requestBody ? { ...i.request, body: requestBody } : i.request,
      ...(i.response ? { response: responseBody ? { ...i.response, body: responseBody } : i.response } : {}),
    };
  }

  /** The recorded interactions one at a time with their bodies encoded, for a save that never holds them all twice. */
  function* storedInteractions(): Generator<Interaction> {
    for (const i of timeline.interactions) yield stored(i);
  }

  /** As stored, or as prepared while recording when the save redacts as the preparation did. */
  function* forSave(redact: RedactionConfig | undefined): Generator<Interaction | PreparedInteraction> {
    const ahead = saveAhead && sameConfig(redact, options.journal?.redact) ? saveAhead : undefined;
    for (const i of timeline.interactions) yield ahead?.get(i) ?? stored(i);
  }

  /** As stored, with placeholders in: here, where the data leaves this machine's hands, and only here (decision 0006). */
  function* finalInteractions(): Generator<Interaction> {
    const portable = portableInteraction(options.folders);
    for (const i of storedInteractions()) yield portable(i);
  }

  let stopped: Promise<void> | undefined;
  /** Ends open exchanges, stops listening and flushes the journal, once. */
  const stop = () =>
    (stopped ??= (async () => {
      closing = true;
      server.close();
      // A client that has just let go of its stream may not have been heard yet: a moment's grace records it as
      // client-closed, which it was, and not proxy-closed.
      if (active.size > 0) await Promise.race([Promise.allSettled([...active.keys()]), delay(CLIENT_CLOSE_GRACE_MS)]);
      for (const end of active.values()) end('proxy');
      for (const end of [...sockets]) end();
      await Promise.allSettled([...active.keys()]);
      server.closeAllConnections();
      await agent.close();
      await journal?.close();
      // Nothing more is prepared: the save, if one follows, renders what was not, and close() needs none of it.
      saveAhead?.stop();
    })());

  return {
    url,
    port,
    cassette,
    stop,
    async close() {
      await stop();
      return cassette();
    },
    async save(file, redact) {
      await stop();
      // Placeholders go in during the redaction walk: one copy of each interaction per save.
      return writeCassetteStream(file, meta, () => forSave(redact), redact, portablePass(options.folders));
    },
    get recorded() {
      return timeline.interactions.length;
    },
    async discardJournal() {
      await journal?.discard();
    },
    get journalError() {
      return journal?.error;
    },
  };
}
