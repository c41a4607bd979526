import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonObject, sendJson } from '../../../net/http-json.js';
import { runTurn } from './turn.js';
import { HttpError, type Json, notFound, VERSION, type World } from './world.js';

/** The routes of `opencode serve` the probes use (native-server-transports.md §2). */
export async function route(w: World, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://opencode.invalid').pathname;
  const method = req.method ?? 'GET';
  const body = () =>
    readJsonObject(req, () => new HttpError(400, { name: 'BadRequest', data: { message: 'Invalid JSON', kind: 'Payload' } }));
  if (method === 'GET' && path === '/global/health') return sendJson(res, 200, { healthy: true, version: VERSION });
  if (method === 'GET' && path === '/event') return openEvents(w, req, res);
  if (method === 'POST' && path === '/session') return sendJson(res, 200, createSession(w, req, await body()));
  if (method === 'GET' && path === '/permission')
    return sendJson(
      res,
      200,
      [...w.permissions.values()].map((p) => p.payload),
    );
  const reply = /^\/permission\/([^/]+)\/reply$/.exec(path);
  if (method === 'POST' && reply) {
    const pending = w.permissions.get(reply[1] as string);
    if (!pending) throw new HttpError(404, { _tag: 'PermissionNotFoundError', message: `Permission not found: ${reply[1]}` });
    const input = await body();
    if (!['once', 'always', 'reject'].includes(String(input.reply)))
      throw new HttpError(400, { name: 'BadRequest', data: { message: 'reply must be once, always or reject', kind: 'Payload' } });
    w.permissions.delete(pending.id);
    pending.reply(String(input.reply));
    return sendJson(res, 200, true);
  }
  const m = /^\/session\/([^/]+)(?:\/(message|prompt_async|abort))?$/.exec(path);
  if (m) return sessionRoute(w, { method, sessionId: m[1] as string, sub: m[2] }, body, res);
  throw notFound(`No route for ${method} ${path}`);
}

/** `/event`: live only, a connection sees what is published after it, never what came before. */
function openEvents(w: World, req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' });
  res.write(`data: ${JSON.stringify({ id: w.id('evt'), type: 'server.connected', properties: {} })}\n\n`);
  w.streams.add(res);
  res.on('close', () => w.streams.delete(res));
  void req;
}

function createSession(w: World, req: IncomingMessage, input: Json): Json {
  const now = w.ids.now() * 1000;
  const directory = String(req.headers['x-opencode-directory'] ?? '/');
  const sessionId = w.id('ses');
  const info: Json = {
    id: sessionId,
    slug: 'sim',
    projectID: 'global',
    directory,
    // As 1.18.33 sends it: the directory relative to the filesystem root.
    path: directory.replace(/^\/+/, ''),
    title: typeof input.title === 'string' ? input.title : 'New session',
    version: VERSION,
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    time: { created: now, updated: now },
  };
  w.sessions.set(sessionId, { info, messages: [], busy: false });
  w.publish('session.created', { sessionID: sessionId, info });
  return info;
}

/** `/session/{id}`, its messages, `prompt_async` (204, then the turn) and `abort`. */
async function sessionRoute(
  w: World,
  at: { method: string; sessionId: string; sub: string | undefined },
  body: () => Promise<Json>,
  res: ServerResponse,
): Promise<void> {
  const { method, sessionId, sub } = at;
  if (method === 'POST' && sub === 'abort') {
    const s = w.sessions.get(sessionId);
    if (s?.abort) s.abort();
    else {
      // Abort on an idle or unknown session still answers true and settles it.
      w.publish('session.status', { sessionID: sessionId, status: { type: 'idle' } });
      w.publish('session.idle', { sessionID: sessionId });
    }
    return sendJson(res, 200, true);
  }
  const session = w.sessions.get(sessionId);
  if (!session) throw notFound(`Session not found: ${sessionId}`);
  if (method === 'GET' && sub === undefined) return sendJson(res, 200, session.info);
  if (method === 'GET' && sub === 'message') return sendJson(res, 200, session.messages);
  if (method === 'POST' && sub === 'prompt_async') {
    const input = await body();
    if (!Array.isArray(input.parts))
      throw new HttpError(400, { name: 'BadRequest', data: { message: 'Missing key "parts"', kind: 'Payload' } });
    const text = (input.parts as { type?: string; text?: string }[]).map((p) => p.text ?? '').join(' ');
    res.writeHead(204);
    res.end();
    setImmediate(() => void runTurn(w, session, text));
    return;
  }
  throw notFound(`No route for ${method} /session/${sessionId}${sub ? `/${sub}` : ''}`);
}
