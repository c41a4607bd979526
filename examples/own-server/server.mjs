// A small agent server of its own, as a team would have one: sessions, turns that stream the prompt back word by
// word over Server-Sent Events, and cancel. Started by the family as its simulator, or on its own:
//   node examples/own-server/server.mjs [--port N] [--changed]
// --changed is the next release: `message.delta` is renamed `message.chunk`, and a new session answers 200.
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the server on 127.0.0.1; ids are counters, so the same run gives the same ids. */
export async function startEchoAgent({ port = 0, host = '127.0.0.1', latencyMs = 5, changed = false } = {}) {
  const sessions = new Map();
  let turns = 0;
  const deltaType = changed ? 'message.chunk' : 'message.delta';
  const send = (session, type, data) => {
    for (const res of session.streams) res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const json = (res, status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const readJson = async (req) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return text ? JSON.parse(text) : {};
  };
  async function runTurn(session, turn, prompt) {
    send(session, 'turn.started', { turn_id: turn.id });
    const words = prompt.split(/\s+/).filter(Boolean);
    for (const [i, word] of words.entries()) {
      await sleep(latencyMs);
      if (turn.cancelled) return;
      send(session, deltaType, { turn_id: turn.id, delta: i === 0 ? word : ` ${word}` });
    }
    send(session, 'turn.completed', { turn_id: turn.id, text: words.join(' ') });
  }
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://agent').pathname;
    const parts = path.split('/').filter(Boolean);
    const session = sessions.get(parts[2]);
    if (req.method === 'GET' && path === '/health') return json(res, 200, { ok: true });
    if (req.method === 'POST' && path === '/v1/sessions') {
      const id = `s${sessions.size + 1}`;
      sessions.set(id, { id, streams: new Set(), turns: new Map() });
      return json(res, changed ? 200 : 201, { id });
    }
    if (!session) return json(res, 404, { error: `no such session: ${parts[2] ?? ''}` });
    if (req.method === 'GET' && parts[3] === 'events' && parts.length === 4) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(': connected\n\n');
      session.streams.add(res);
      req.on('close', () => session.streams.delete(res));
      return undefined;
    }
    if (req.method === 'POST' && parts[3] === 'turns' && parts.length === 4) {
      const { prompt } = await readJson(req);
      if (typeof prompt !== 'string' || prompt === '') return json(res, 400, { error: 'prompt: give the text of the turn' });
      const turn = { id: `t${++turns}`, cancelled: false };
      session.turns.set(turn.id, turn);
      json(res, 202, { turn_id: turn.id });
      void runTurn(session, turn, prompt);
      return undefined;
    }
    if (req.method === 'POST' && parts[3] === 'turns' && parts[5] === 'cancel') {
      const turn = session.turns.get(parts[4]);
      if (!turn) return json(res, 404, { error: `no such turn: ${parts[4]}` });
      turn.cancelled = true;
      json(res, 200, { cancelled: true });
      send(session, 'turn.cancelled', { turn_id: turn.id });
      return undefined;
    }
    return json(res, 404, { error: `${req.method} ${path} is not a route of this server` });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const { port: bound } = server.address();
  return {
    url: `http://${host}:${bound}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--port');
  const agent = await startEchoAgent({ port: at > 0 ? Number(process.argv[at + 1]) : 0, changed: process.argv.includes('--changed') });
  process.stdout.write(`listening on ${agent.url}\n`);
  const stop = () => agent.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
