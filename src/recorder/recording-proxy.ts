import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent } from 'undici';
import {
  type Body,
  type CassetteMeta,
  type Interaction,
  interactionPreparer,
  makeRedactor,
  portablePass,
  type Redactor,
  unreadableCoding,
  writeCassetteStream,
} from '../cassette/index.js';
import { listen } from '../net/listen.js';
import { TAPEDECK_VERSION } from '../version.js';
import { endToEndHeaders } from './headers.js';
import { JournalWriter } from './journal/index.js';
import { Later } from './later.js';
import { recordExchange } from './proxy/exchange.js';
import { type Exchange, errorText, type ProxyContext, type StopReason, stoppedBy } from './proxy/exchange-parts.js';
import type { RecordingProxy, RecordingProxyOptions } from './proxy/options.js';
import { RecordingSnapshot } from './proxy/snapshot.js';
import { SaveAhead } from './save-ahead.js';
import { publicTarget } from './target.js';
import { Timeline } from './timeline.js';
import { prepareWakeUps } from './wake-up.js';
import { warmUpForwarding } from './warm-up.js';
import { relayWebSocket } from './websocket-relay.js';

export type { RecordingProxy, RecordingProxyOptions } from './proxy/options.js';

/** How long a stop waits for a client's close already on its way before it ends the stream itself. */
const CLIENT_CLOSE_GRACE_MS = 200;

/** The exchanges and WebSocket relays under way, each with how to stop it. */
interface UnderWay {
  active: Map<Promise<void>, (reason: StopReason) => void>;
  sockets: Set<() => void>;
  closing: boolean;
}

/**
 * Starts a reverse proxy that forwards every request to `target` unchanged and
 * records the traffic on one timeline. Response chunks reach the client as
 * soon as they arrive; SSE events are parsed on the fly, never buffered.
 */
export async function startRecordingProxy(options: RecordingProxyOptions): Promise<RecordingProxy> {
  const meta = metaFor(options);
  const journal =
    options.journal &&
    (await JournalWriter.create(options.journal.file, meta, { redact: options.journal.redact, folders: options.folders }));
  const rawBodies = new WeakMap<object, Buffer | Body>();
  // A recording bound for a file is prepared for its save as it goes, with the redaction the journal uses.
  const prepare = options.journal && interactionPreparer(options.journal.redact, portablePass(options.folders));
  const saveAhead: SaveAhead | undefined = prepare && new SaveAhead((i: Interaction) => prepare(() => snapshot.stored(i)));
  const timeline: Timeline = new Timeline(journal ? (entry) => journal.add(entry) : undefined, saveAhead);
  const ctx = proxyContext(options, timeline, rawBodies, new Later(journal ? (batch) => journal.batch(batch) : undefined));
  const snapshot: RecordingSnapshot = new RecordingSnapshot(meta, timeline, ctx.later, rawBodies, options.folders);
  const underWay: UnderWay = { active: new Map(), sockets: new Set(), closing: false };
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
      await stopExchanges(server, underWay);
      await ctx.agent.close();
      await journal?.close();
      // Nothing more is prepared: the save, if one follows, renders what was not, and close() needs none of it.
      saveAhead?.stop();
    })());
  return {
    ...bound,
    cassette: () => snapshot.cassette(),
    stop,
    close: () => stop().then(() => snapshot.cassette()),
    async save(file, redact) {
      await stop();
      // Placeholders go in during the redaction walk: one copy of each interaction per save.
      const ahead = { saveAhead, redact: options.journal?.redact };
      return writeCassetteStream(file, meta, () => snapshot.forSave(redact, ahead), redact, portablePass(options.folders));
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

/** The cassette's meta: who recorded what, when, with which labels and packs. */
function metaFor(options: RecordingProxyOptions): CassetteMeta {
  return {
    recorder: `tapedeck ${TAPEDECK_VERSION}`,
    target: options.describedAs ?? publicTarget(options.target).display,
    recordedAt: new Date().toISOString(),
    ...(options.labels && Object.keys(options.labels).length > 0 ? { labels: { ...options.labels } } : {}),
    ...(options.packs ? { packs: [...options.packs] } : {}),
  };
}

/** What the proxy's exchanges share: the target, the timeline, the upstream agent, and how they log. */
function proxyContext(
  options: RecordingProxyOptions,
  timeline: Timeline,
  rawBodies: WeakMap<object, Buffer | Body>,
  later: Later,
): ProxyContext {
  const log = options.log ?? (() => {});
  // Log lines end up in CI output: a path shows with its secrets (a key in the query, a header's token repeated
  // in the path) replaced, as the recording will have them. Built on first use: most recordings log nothing.
  let forLog: Redactor | undefined;
  const shown = (request: Interaction['request']) =>
    (forLog ??= makeRedactor(options.journal?.redact)).request({ path: request.path, headers: request.headers, body: '' }).path;
  const toldOf = new Set<string>();
  // Once per coding: a body tapedeck cannot decode is saved as it came, and nothing in it is redacted.
  const tellUnreadable = (interaction: Interaction, contentEncoding: string | undefined) => {
    const coding = unreadableCoding(contentEncoding);
    if (!coding || toldOf.has(coding)) return;
    toldOf.add(coding);
    log(
      `${interaction.request.method} ${shown(interaction.request)}: the response is in ${coding}, a content coding tapedeck cannot decode here; its body is saved as it came, and nothing in it is redacted (have the client ask for gzip or br, e.g. without ${coding} in its Accept-Encoding)`,
    );
  };
  const agent = new Agent({ headersTimeout: options.headersTimeoutMs ?? 60_000, bodyTimeout: 0, keepAliveTimeout: 10_000 });
  return { target: publicTarget(options.target), timeline, later, agent, log, shown, rawBodies, tellUnreadable };
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
  return server;
}

/** One request: opened on the timeline, stopped when its client goes away or the proxy stops, recorded to its end. */
async function handle(ctx: ProxyContext, underWay: UnderWay, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const interaction = ctx.timeline.open({
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
  const self = recordExchange(ctx, interaction, req, res, exchange);
  underWay.active.set(self, stop);
  try {
    await self;
  } finally {
    underWay.active.delete(self);
  }
}

/** Stops taking requests and ends what is under way: exchanges as proxy-closed (after a moment's grace), relays closed. */
async function stopExchanges(server: Server, underWay: UnderWay): Promise<void> {
  underWay.closing = true;
  server.close();
  const { active, sockets } = underWay;
  // A client that has just let go of its stream may not have been heard yet: a moment's grace records it as
  // client-closed, which it was, and not proxy-closed.
  if (active.size > 0) await Promise.race([Promise.allSettled([...active.keys()]), delay(CLIENT_CLOSE_GRACE_MS)]);
  for (const end of active.values()) end('proxy');
  for (const end of [...sockets]) end();
  await Promise.allSettled([...active.keys()]);
  server.closeAllConnections();
}
