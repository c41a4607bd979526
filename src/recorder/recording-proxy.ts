import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Writable } from 'node:stream';
import { Agent, errors as undiciErrors, stream as undiciStream } from 'undici';
import {
  CASSETTE_VERSION,
  type Cassette,
  encodeBody,
  type Interaction,
  type MachineFolders,
  makePortable,
  type SseItem,
  type SseStream,
} from '../cassette/index.js';
import { listen } from '../net/listen.js';
import { type SseFrame, SseParser } from '../sse/index.js';
import { TAPEDECK_VERSION } from '../version.js';
import { endToEndHeaders, headerValue } from './headers.js';
import { publicTarget, type TargetUrl } from './target.js';
import { Timeline } from './timeline.js';
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
}

export interface RecordingProxy {
  readonly url: string;
  readonly port: number;
  /** What has been recorded so far, as a cassette. */
  cassette(): Cassette;
  /** Ends open streams as `proxy-closed`, stops listening and returns the final cassette. */
  close(): Promise<Cassette>;
}

type StopReason = 'client' | 'proxy';

function toItem(frame: SseFrame, at: number, after: number): SseItem {
  if (frame.kind === 'comment') return { at, after, comment: frame.comment };
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

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Starts a reverse proxy that forwards every request to `target` unchanged and
 * records the traffic on one timeline. Response chunks reach the client as
 * soon as they arrive; SSE events are parsed on the fly, never buffered.
 */
export async function startRecordingProxy(options: RecordingProxyOptions): Promise<RecordingProxy> {
  const target: TargetUrl = publicTarget(options.target);
  const timeline = new Timeline();
  const recordedAt = new Date().toISOString();
  const log = options.log ?? (() => {});
  const agent = new Agent({
    headersTimeout: options.headersTimeoutMs ?? 60_000,
    bodyTimeout: 0,
    keepAliveTimeout: 10_000,
  });
  const active = new Map<Promise<void>, (reason: StopReason) => void>();
  // Bodies stay raw bytes while recording; choosing JSON, text or base64 waits for a snapshot.
  const rawBodies = new WeakMap<object, Buffer>();
  let closing = false;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const interaction = timeline.open({
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: endToEndHeaders(req.headersDistinct),
    });
    const controller = new AbortController();
    let stopReason: StopReason | undefined;
    const stop = (reason: StopReason) => {
      stopReason ??= reason;
      controller.abort();
    };
    res.on('close', () => {
      if (!res.writableFinished) stop('client');
    });
    const self = handleExchange(interaction, req, res, controller.signal, () => stopReason);
    active.set(self, stop);
    try {
      await self;
    } finally {
      active.delete(self);
    }
  }

  async function handleExchange(
    interaction: Interaction,
    req: IncomingMessage,
    res: ServerResponse,
    signal: AbortSignal,
    stopReason: () => StopReason | undefined,
  ): Promise<void> {
    const bodyBytes = await readAll(req);
    if (bodyBytes.byteLength > 0) rawBodies.set(interaction.request, bodyBytes);

    let stream: SseStream | undefined;
    let parser: SseParser | undefined;
    const chunks: Buffer[] = [];
    try {
      await undiciStream(
        target.resolve(interaction.request.path),
        {
          method: interaction.request.method as 'GET',
          headers: interaction.request.headers,
          body: bodyBytes.byteLength > 0 ? bodyBytes : null,
          dispatcher: agent,
          signal,
        },
        ({ statusCode, headers: rawHeaders }) => {
          interaction.timing.headers = timeline.now();
          const headers = endToEndHeaders(rawHeaders);
          const isSse = (headerValue(headers, 'content-type') ?? '').toLowerCase().startsWith('text/event-stream');
          res.writeHead(statusCode, headers);
          res.flushHeaders();
          if (isSse) {
            stream = { events: [], end: 'server-closed' };
            parser = new SseParser();
          }
          interaction.response = stream ? { status: statusCode, headers, stream } : { status: statusCode, headers };
          // A plain Writable keeps each chunk on the synchronous path from upstream socket to client socket.
          return new Writable({
            write(chunk: Buffer, _encoding, done) {
              const at = timeline.now();
              const after = timeline.lastSeq;
              const flushed = res.destroyed || res.write(chunk);
              if (parser && stream) {
                for (const frame of parser.push(chunk)) stream.events.push(toItem(frame, at, after));
              } else {
                chunks.push(chunk);
              }
              if (flushed) done();
              else res.once('drain', () => done());
            },
            final(done) {
              if (parser && stream) {
                for (const frame of parser.end()) stream.events.push(toItem(frame, timeline.now(), timeline.lastSeq));
              }
              done();
            },
          });
        },
      );
      res.end();
    } catch (err) {
      const reason = stopReason();
      if (!interaction.response) {
        recordUnreachable(interaction, res, err, reason);
        return;
      }
      if (stream) {
        stream.end = reason === 'client' ? 'client-closed' : reason === 'proxy' ? 'proxy-closed' : 'broken';
        if (!reason) stream.error = errorText(err);
      } else if (!reason) {
        interaction.failure = { code: failureCode(err), message: errorText(err) };
      }
      if (!reason) {
        log(`upstream broke ${interaction.request.method} ${interaction.request.path}: ${errorText(err)}`);
        res.destroy();
      } else if (reason === 'proxy') {
        res.end();
      }
    } finally {
      if (!stream && interaction.response && chunks.length > 0) rawBodies.set(interaction.response, Buffer.concat(chunks));
      interaction.timing.end = timeline.now();
    }
  }

  function recordUnreachable(interaction: Interaction, res: ServerResponse, err: unknown, reason: StopReason | undefined): void {
    const code = reason ? 'client_aborted' : failureCode(err);
    const message = `${interaction.request.method} ${interaction.request.path}: ${errorText(err)}`;
    interaction.failure = { code, message };
    if (reason) return;
    log(`upstream ${target.display} failed (${code}) for ${message}`);
    const body = JSON.stringify({ error: { code, message: `tapedeck proxy: ${message}` } });
    res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  const server = createServer((req, res) => {
    if (closing) {
      res.writeHead(503, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ error: { code: 'proxy_closing', message: 'tapedeck proxy is shutting down' } }));
      return;
    }
    handle(req, res).catch((err) => {
      log(`internal error on ${req.method} ${req.url}: ${errorText(err)}`);
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
  const { port, url } = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');

  // Placeholders go in here, where the data leaves this machine's hands, and only here (decision 0006).
  const cassette = (): Cassette =>
    makePortable(
      {
        version: CASSETTE_VERSION,
        meta: {
          recorder: `tapedeck ${TAPEDECK_VERSION}`,
          target: target.display,
          recordedAt,
          ...(options.labels && Object.keys(options.labels).length > 0 ? { labels: { ...options.labels } } : {}),
        },
        interactions: timeline.interactions.map((i) => withBodies(structuredClone(i), i)),
      },
      options.folders,
    );

  function withBodies(copy: Interaction, original: Interaction): Interaction {
    const requestBody = encodeBody(rawBodies.get(original.request) ?? Buffer.alloc(0));
    if (requestBody) copy.request.body = requestBody;
    const responseBody = original.response && encodeBody(rawBodies.get(original.response) ?? Buffer.alloc(0));
    if (copy.response && responseBody) copy.response.body = responseBody;
    return copy;
  }

  return {
    url,
    port,
    cassette,
    async close() {
      if (!closing) {
        closing = true;
        server.close();
        for (const stop of active.values()) stop('proxy');
        for (const stop of [...sockets]) stop();
        await Promise.allSettled([...active.keys()]);
        server.closeAllConnections();
        await agent.close();
      }
      return cassette();
    },
  };
}
