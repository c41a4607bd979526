import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request, errors as undiciErrors } from 'undici';
import { CASSETTE_VERSION, type Cassette, encodeBody, type Interaction, type SseItem, type SseStream } from '../cassette/index.js';
import { type SseFrame, SseParser } from '../sse/index.js';
import { TAPEDECK_VERSION } from '../version.js';
import { endToEndHeaders, headerValue } from './headers.js';
import { publicTarget, type TargetUrl } from './target.js';
import { Timeline } from './timeline.js';

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

/** Writes a chunk, waiting for the client to drain; false when the client is gone. */
async function writeChunk(res: ServerResponse, chunk: Uint8Array): Promise<boolean> {
  if (res.destroyed) return false;
  if (res.write(chunk)) return true;
  await Promise.race([once(res, 'drain'), once(res, 'close')]);
  return !res.destroyed;
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
    const requestBody = encodeBody(bodyBytes);
    if (requestBody) interaction.request.body = requestBody;

    let upstream: Awaited<ReturnType<typeof request>>;
    try {
      upstream = await request(target.resolve(interaction.request.path), {
        method: interaction.request.method as 'GET',
        headers: interaction.request.headers,
        body: bodyBytes.byteLength > 0 ? bodyBytes : null,
        dispatcher: agent,
        signal,
      });
    } catch (err) {
      const code = stopReason() ? 'client_aborted' : failureCode(err);
      const message = `${interaction.request.method} ${interaction.request.path}: ${errorText(err)}`;
      interaction.failure = { code, message };
      interaction.timing.end = timeline.now();
      if (!stopReason()) {
        log(`upstream ${target.display} failed (${code}) for ${message}`);
        const body = JSON.stringify({ error: { code, message: `tapedeck proxy: ${message}` } });
        res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      }
      return;
    }

    interaction.timing.headers = timeline.now();
    const headers = endToEndHeaders(upstream.headers);
    const status = upstream.statusCode;
    const isSse = (headerValue(headers, 'content-type') ?? '').toLowerCase().startsWith('text/event-stream');
    res.writeHead(status, headers);
    res.flushHeaders();

    const stream: SseStream | undefined = isSse ? { events: [], end: 'server-closed' } : undefined;
    interaction.response = stream ? { status, headers, stream } : { status, headers };
    const parser = stream ? new SseParser() : undefined;
    const chunks: Buffer[] = [];
    let clientGone = false;
    try {
      for await (const chunk of upstream.body) {
        const at = timeline.now();
        const after = timeline.lastSeq;
        if (!clientGone) clientGone = !(await writeChunk(res, chunk as Buffer));
        if (parser && stream) {
          for (const frame of parser.push(chunk as Buffer)) stream.events.push(toItem(frame, at, after));
        } else {
          chunks.push(chunk as Buffer);
        }
      }
      if (parser && stream) {
        for (const frame of parser.end()) stream.events.push(toItem(frame, timeline.now(), timeline.lastSeq));
      }
      res.end();
    } catch (err) {
      const reason = stopReason();
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
    }
    if (!stream) {
      const body = encodeBody(Buffer.concat(chunks));
      if (body && interaction.response) interaction.response.body = body;
    }
    interaction.timing.end = timeline.now();
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
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';

  const cassette = (): Cassette => ({
    version: CASSETTE_VERSION,
    meta: {
      recorder: `tapedeck ${TAPEDECK_VERSION}`,
      target: target.display,
      recordedAt,
      ...(options.labels && Object.keys(options.labels).length > 0 ? { labels: { ...options.labels } } : {}),
    },
    interactions: structuredClone(timeline.interactions),
  });

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    cassette,
    async close() {
      if (!closing) {
        closing = true;
        server.close();
        for (const stop of active.values()) stop('proxy');
        await Promise.allSettled([...active.keys()]);
        server.closeAllConnections();
        await agent.close();
      }
      return cassette();
    },
  };
}
