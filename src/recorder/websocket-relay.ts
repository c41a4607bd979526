import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { type Headers, type Interaction, payloadFromWire, sendableCloseCode, type WsSession, wireBytes } from '../cassette/index.js';
import { tunnelOrigin } from '../net/tunnels.js';
import { endToEndHeaders } from './headers.js';
import type { Route, TargetUrl } from './target.js';
import type { Timeline } from './timeline.js';

// The handshake's own headers are per connection (a random key, negotiated extensions): never recorded or forwarded.
const HANDSHAKE = /^sec-websocket-(key|accept|version|extensions)$/;

export interface RelayContext {
  timeline: Timeline;
  target: TargetUrl;
  log: (line: string) => void;
  /** A request's path as a log line shows it: its secrets replaced. */
  shown: (request: Interaction['request']) => string;
  /** Registers a way to end this session when the proxy closes; returns the unregister. */
  track: (stop: () => void) => () => void;
}

const handshakes = new WebSocketServer({ noServer: true });

/**
 * Relays an `Upgrade: websocket` request: connects upstream first (so a refusal
 * reaches the client as the upstream's own status), then accepts the client
 * and forwards frames both ways as they come, recording each on the timeline.
 */
export function relayWebSocket(ctx: RelayContext, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const { timeline } = ctx;
  const headers = Object.fromEntries(Object.entries(endToEndHeaders(req.headersDistinct)).filter(([k]) => !HANDSHAKE.test(k)));
  const route = ctx.target.route(req.url ?? '/', tunnelOrigin(req.socket));
  if (!route.ok) {
    ctx.log(`refused a WebSocket (${route.status}): ${route.message}`);
    socket.end(`HTTP/1.1 ${route.status} Refused\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    return;
  }
  const interaction = timeline.open({
    method: 'GET',
    path: route.path,
    ...(route.namedOrigin ? { origin: route.namedOrigin } : {}),
    headers,
  });
  const upstream = connectUpstream(req, headers, route);
  let opened = false;
  let settled = false;
  // Until the upstream answers, the proxy closing must still end this exchange (as a failure) and its sockets.
  const untrackPending = ctx.track(() => {
    if (!opened) refuse(502, 'proxy_closed_during_handshake', 'the proxy stopped before the upstream answered the WebSocket handshake');
    upstream.terminate();
  });

  const refuse = (status: number, code: string, message: string) => {
    if (settled) return;
    settled = true;
    untrackPending();
    timeline.finish(interaction, { failure: { code, message } });
    ctx.log(`upstream refused the WebSocket ${ctx.shown(interaction.request)}: ${message}`);
    if (socket.writable)
      socket.end(`HTTP/1.1 ${status} ${status === 502 ? 'Bad Gateway' : 'Refused'}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    socket.destroy();
  };
  upstream.once('unexpected-response', (_req, res) => {
    res.resume();
    refuse(res.statusCode ?? 502, 'upstream_refused_upgrade', `answered ${res.statusCode} instead of 101`);
  });
  upstream.once('error', (err) => {
    if (!opened) refuse(502, 'upstream_unreachable', err.message);
  });
  upstream.once('open', () => {
    if (settled) return;
    opened = true;
    settled = true;
    untrackPending();
    handshakes.handleUpgrade(req, socket, head, (client) => relayFrames(ctx, interaction, client, upstream));
  });
}

/** The upstream half of a relay: the client's offered subprotocols and end-to-end headers, the path as the client wrote it. */
function connectUpstream(req: IncomingMessage, headers: Headers, route: Route): WebSocket {
  const protocols = (req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const forwarded = Object.fromEntries(
    Object.entries(headers)
      .filter(([k]) => k !== 'sec-websocket-protocol')
      .map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
  );
  return new WebSocket(`${route.origin.replace(/^http/, 'ws')}${route.upstreamPath}`, protocols, {
    headers: forwarded,
    perMessageDeflate: false,
    // ws reads its address as a URL, which resolves `/a/../b`: the request line carries the path as the client wrote it.
    finishRequest: (request) => {
      request.path = route.upstreamPath;
      request.end();
    },
  });
}

/** Both halves open: every frame each way forwarded as it comes and recorded, and whichever end closes first ends the session. */
function relayFrames(ctx: RelayContext, interaction: Interaction, client: WebSocket, upstream: WebSocket): void {
  const { timeline } = ctx;
  const session: WsSession = { frames: [], end: 'server-closed' };
  timeline.respond(interaction, { status: 101, headers: {}, websocket: session });
  let ended = false;
  const finish = (end: WsSession['end'], error?: string) => {
    if (ended) return false;
    ended = true;
    timeline.finish(interaction, error ? { end, error } : { end });
    untrack();
    return true;
  };
  const untrack = ctx.track(() => {
    if (finish('proxy-closed')) {
      client.close(1001, 'tapedeck proxy closing');
      upstream.close(1001, 'tapedeck proxy closing');
    }
  });

  client.on('message', (data: RawData, binary: boolean) => {
    const seq = timeline.tick();
    timeline.frame(interaction, { at: timeline.now(), from: 'client', seq, after: seq, ...payloadFromWire(wireBytes(data), binary) });
    upstream.send(data, { binary });
  });
  upstream.on('message', (data: RawData, binary: boolean) => {
    timeline.frame(interaction, {
      at: timeline.now(),
      from: 'server',
      after: timeline.lastSeq,
      ...payloadFromWire(wireBytes(data), binary),
    });
    client.send(data, { binary });
  });
  client.on('close', (code: number, reason: Buffer) => {
    if (ended) return;
    const seq = timeline.tick();
    timeline.frame(interaction, { at: timeline.now(), from: 'client', seq, after: seq, close: { code, reason: reason.toString() } });
    finish('client-closed');
    if (sendableCloseCode(code)) upstream.close(code, reason);
    else upstream.close();
  });
  upstream.on('close', (code: number, reason: Buffer) => {
    if (ended) return;
    timeline.frame(interaction, {
      at: timeline.now(),
      from: 'server',
      after: timeline.lastSeq,
      close: { code, reason: reason.toString() },
    });
    if (code === 1006) {
      finish('broken', 'the upstream connection dropped without a close frame');
      client.terminate();
      return;
    }
    finish('server-closed');
    if (sendableCloseCode(code)) client.close(code, reason);
    else client.close();
  });
  upstream.on('error', (err) => {
    if (finish('broken', err.message)) client.terminate();
  });
  client.on('error', () => {
    if (finish('client-closed')) upstream.close();
  });
}
