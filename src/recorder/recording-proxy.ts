import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type { Interaction } from '../cassette/index.js';
import { listen, outlastClientKeepAlive } from '../net/listen.js';
import { serveTunnels, tunnelOrigin } from '../net/tunnels.js';
import { endToEndHeaders } from './headers.js';
import { recordExchange } from './proxy/exchange.js';
import { type Exchange, errorText, type ProxyContext, type StopReason, stoppedBy } from './proxy/exchange-parts.js';
import type { RecordingProxy, RecordingProxyOptions } from './proxy/options.js';
import { openRecording } from './recording.js';
import { publicTarget, type Refusal } from './target.js';
import { prepareWakeUps } from './wake-up.js';
import { warmUpForwarding } from './warm-up.js';
import { relayWebSocket } from './websocket-relay.js';

export type { RecordingProxy, RecordingProxyOptions } from './proxy/options.js';

/** How long a stop waits for a client's close already on its way before it ends the stream itself. */
const CLIENT_CLOSE_GRACE_MS = 200;

/** How long a stop waits, by default, for a client part-way through an upload before it cuts the upload. */
const UPLOAD_GRACE_MS = 5_000;

/** The exchanges and WebSocket relays under way, each with how to stop it. */
interface UnderWay {
  active: Map<Promise<void>, { exchange: Exchange; stop: (reason: StopReason) => void }>;
  sockets: Set<() => void>;
  closing: boolean;
  /** Ends the uploads' grace at once (a second signal). */
  hurry: () => void;
  hurried: Promise<void>;
}

/**
 * Starts a reverse proxy that forwards every request to `target` unchanged and
 * records the traffic on one timeline. Response chunks reach the client as
 * soon as they arrive; SSE events are parsed on the fly, never buffered.
 */
export async function startRecordingProxy(options: RecordingProxyOptions): Promise<RecordingProxy> {
  // A bad --target or --allow-origin is refused before anything is written.
  const target = publicTarget(options.target, options.allowOrigins);
  const recording = await openRecording(options, target);
  const { ctx, timeline, journal } = recording;
  const underWay = underWayList();
  const server = proxyServer(ctx, underWay);
  let bound: { port: number; url: string };
  try {
    await Promise.all([prepareWakeUps(), warmUpForwarding()]);
    bound = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  } catch (err) {
    await journal?.discard();
    throw err;
  }
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await stopExchanges(server, underWay, options.uploadGraceMs ?? UPLOAD_GRACE_MS);
      await recording.close();
    })());
  return {
    ...bound,
    cassette: () => recording.cassette(),
    stop,
    hurry: () => underWay.hurry(),
    close: () => stop().then(() => recording.cassette()),
    async save(file, redact) {
      await stop();
      return recording.write(file, redact);
    },
    get recorded() {
      return timeline.interactions.length;
    },
    discardJournal: async () => journal?.discard(),
    get journalError() {
      return journal?.error;
    },
  };
}

/** The proxy's HTTP server: each request recorded as one exchange, each WebSocket upgrade relayed. */
function proxyServer(ctx: ProxyContext, underWay: UnderWay): Server {
  const server = createServer((req, res) => {
    if (underWay.closing) {
      res.writeHead(503, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ error: { code: 'proxy_closing', message: 'tapedeck proxy is shutting down' } }));
      return;
    }
    handle(ctx, underWay, req, res).catch((err) => {
      const request = { method: req.method ?? 'GET', path: req.url ?? '/', headers: endToEndHeaders(req.headersDistinct) };
      ctx.log(`internal error on ${req.method} ${ctx.shown(request)}: ${errorText(err)}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  serveTunnels(server, ctx.target.tunnel, ctx.log);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (underWay.closing || (req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
      socket.destroy();
      return;
    }
    const track = (stop: () => void) => {
      underWay.sockets.add(stop);
      return () => underWay.sockets.delete(stop);
    };
    relayWebSocket({ timeline: ctx.timeline, target: ctx.target, log: ctx.log, shown: ctx.shown, track }, req, socket, head);
  });
  outlastClientKeepAlive(server);
  return server;
}

/** One request: opened on the timeline, stopped when its client goes away or the proxy stops, recorded to its end. */
async function handle(ctx: ProxyContext, underWay: UnderWay, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const route = ctx.target.route(req.url ?? '/', tunnelOrigin(req.socket));
  if (!route.ok) {
    refuseRequest(ctx, req, res, route);
    return;
  }
  const interaction = ctx.timeline.open({
    method: req.method ?? 'GET',
    path: route.path,
    ...(route.namedOrigin ? { origin: route.namedOrigin } : {}),
    headers: endToEndHeaders(req.headersDistinct),
  });
  const exchange: Exchange = { stopReason: undefined, upstream: undefined, uploading: false };
  const stop = (reason: StopReason) => {
    exchange.stopReason ??= reason;
    exchange.upstream?.abort(stoppedBy(reason));
    // An upload the proxy stops is cut here: it never waits on the client to send the rest.
    if (reason === 'proxy' && exchange.uploading) req.destroy();
  };
  res.on('close', () => {
    if (!res.writableFinished) stop('client');
  });
  const self = recordExchange(ctx, { interaction, route }, req, res, exchange);
  underWay.active.set(self, { exchange, stop });
  try {
    await self;
  } finally {
    underWay.active.delete(self);
    ctx.logExchange?.(exchangeLine(ctx, interaction));
  }
}

/** `GET /v1/x → 200 12.3 ms, 40 events`: what one exchange did, as a person watching the proxy wants it. */
function exchangeLine(ctx: ProxyContext, i: Interaction): string {
  const ms = i.timing.end !== undefined ? ` ${(i.timing.end - i.timing.start).toFixed(1)} ms` : '';
  const stream = i.response?.stream;
  const events = stream ? `, ${stream.events.length} events (${stream.end})` : '';
  const outcome = i.failure ? i.failure.code : String(i.response?.status ?? '');
  return `${i.request.method} ${ctx.shown(i.request)} → ${outcome}${ms}${events}`;
}

/** A request the proxy will not forward (a refused origin, an odd request target): answered, logged, never recorded. */
function refuseRequest(ctx: ProxyContext, req: IncomingMessage, res: ServerResponse, refusal: Refusal): void {
  ctx.log(`refused ${req.method} (${refusal.status}): ${refusal.message}`);
  const body = JSON.stringify({ error: { code: refusal.code, message: refusal.message } });
  res.writeHead(refusal.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
  // What the client still sends of its body is read and dropped, so the connection stays usable.
  req.resume();
}

function underWayList(): UnderWay {
  let hurry!: () => void;
  const hurried = new Promise<void>((resolve) => {
    hurry = resolve;
  });
  return { active: new Map(), sockets: new Set(), closing: false, hurry, hurried };
}

/**
 * Stops taking requests and ends what is under way: exchanges as proxy-closed
 * (after a moment's grace), uploads still coming in after `uploadGraceMs` (or
 * at once when hurried), relays closed.
 */
async function stopExchanges(server: Server, underWay: UnderWay, uploadGraceMs: number): Promise<void> {
  underWay.closing = true;
  server.close();
  const { active, sockets } = underWay;
  // Each wait ends when what it waits for settles, its time is up or a second signal hurries the stop.
  const waitFor = async (entries: Promise<void>[], ms: number) => {
    const timer = new AbortController();
    const timeUp = delay(ms, undefined, { signal: timer.signal }).catch(() => {});
    await Promise.race([Promise.allSettled(entries), timeUp, underWay.hurried]);
    timer.abort();
  };
  // A client that has just let go of its stream may not have been heard yet: a moment's grace records it as
  // client-closed, which it was, and not proxy-closed.
  if (active.size > 0) await waitFor([...active.keys()], CLIENT_CLOSE_GRACE_MS);
  const uploads = [...active].filter(([, a]) => a.exchange.uploading).map(([p]) => p);
  if (uploads.length > 0) await waitFor(uploads, uploadGraceMs);
  for (const { stop } of active.values()) stop('proxy');
  for (const end of [...sockets]) end();
  await Promise.allSettled([...active.keys()]);
  server.closeAllConnections();
}
