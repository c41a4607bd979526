// A session API for re-run tests, run as its own process: node session-server.mjs [--changed]. It issues random ids
// and a session token, streams a session's events over SSE, and answers a message poll that moves queued, running,
// completed. --changed is its next release: the message's end event is renamed and the poll's answer gains a field.
// Prints "listening on URL" first; stops when its parent does or on SIGTERM.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const changed = process.argv.includes('--changed');
const STAGE_MS = 120;
const id = (prefix) => `${prefix}_${randomBytes(8).toString('hex')}`;
const sessions = new Map();

const json = (res, status, body, headers = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const readBody = async (req) => {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : {};
};
const send = (session, event, data) => {
  for (const res of session.streams) res.write(`event: ${event}\nid: ${id('evt')}\ndata: ${JSON.stringify(data)}\n\n`);
  session.backlog.push([event, data]);
};

function stageOf(message) {
  const stage = Math.floor((Date.now() - message.at) / STAGE_MS);
  return stage <= 0 ? 'queued' : stage === 1 ? 'running' : 'completed';
}

function answerMessage(session, text) {
  const message = { id: id('msg'), at: Date.now(), text: `You said: ${text}` };
  session.messages.set(message.id, message);
  setTimeout(() => {
    send(session, 'message.started', { message_id: message.id, session_id: session.id });
    for (const piece of message.text.split(' ')) send(session, 'message.delta', { message_id: message.id, text: `${piece} ` });
    send(session, changed ? 'message.finished' : 'message.completed', { message_id: message.id });
  }, STAGE_MS);
  return message;
}

async function route(req, res) {
  const path = new URL(req.url, 'http://x').pathname;
  const parts = path.split('/').filter(Boolean);
  if (req.method === 'POST' && path === '/sessions') {
    const body = await readBody(req);
    const session = { id: id('ses'), token: id('tok'), name: body.name ?? 'unnamed', streams: new Set(), backlog: [], messages: new Map() };
    sessions.set(session.id, session);
    return json(
      res,
      201,
      { id: session.id, name: session.name },
      { location: `/sessions/${session.id}`, 'x-session-token': session.token },
    );
  }
  const session = parts[0] === 'sessions' ? sessions.get(parts[1]) : undefined;
  if (!session) return json(res, 404, { error: `no session ${parts[1]}` });
  if (req.headers['x-session-token'] !== session.token) return json(res, 401, { error: 'x-session-token is missing or wrong' });
  if (req.method === 'GET' && parts[2] === 'events') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(`event: ready\ndata: ${JSON.stringify({ session_id: session.id })}\n\n`);
    session.streams.add(res);
    req.on('close', () => session.streams.delete(res));
    return;
  }
  if (req.method === 'POST' && parts[2] === 'messages' && parts.length === 3) {
    const message = answerMessage(session, (await readBody(req)).text ?? '');
    return json(res, 202, { message_id: message.id, status: 'queued' });
  }
  const message = parts[2] === 'messages' ? session.messages.get(parts[3]) : undefined;
  if (req.method === 'GET' && message) {
    const status = stageOf(message);
    const done = status === 'completed' ? { text: message.text, ...(changed ? { usage: { output_tokens: 4 } } : {}) } : {};
    return json(res, 200, { message_id: message.id, status, ...done });
  }
  if (req.method === 'DELETE' && parts.length === 2) {
    sessions.delete(session.id);
    for (const s of session.streams) s.end();
    res.writeHead(204);
    return res.end();
  }
  return json(res, 404, { error: `no route ${req.method} ${path}` });
}

const server = createServer((req, res) => {
  route(req, res).catch((error) => json(res, 500, { error: String(error) }));
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// Never outlive the test that started it: a parent gone leaves this process to another.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop();
}, 500);
