import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { readJsonObject, sendJson } from '../../../net/http-json.js';
import { listen } from '../../../net/listen.js';
import { SeededIds } from '../../../net/seeded-ids.js';

export interface OpenCodeSimulatorOptions {
  seed?: number;
  port?: number;
  host?: string;
}

export interface OpenCodeSimulator {
  url: string;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
const VERSION = '1.18.33';
/** The long reply: words 25 ms apart, as the mock model paces its essay, so an abort lands mid-text. */
const ESSAY = Array.from({ length: 40 }, (_, i) => `${i === 0 ? 'Computing' : 'history'} `);
const ESSAY_PACE_MS = 25;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

const notFound = (what: string) => new HttpError(404, { name: 'NotFoundError', data: { message: what } });

interface Session {
  info: Json;
  messages: { info: Json; parts: Json[] }[];
  busy: boolean;
  abort?: () => void;
}

interface Pending {
  id: string;
  sessionID: string;
  payload: Json;
  reply: (reply: string) => void;
}

/**
 * An `opencode serve` simulator (native-server-transports.md §2): sessions,
 * `prompt_async` (204, then the turn on the live-only `/event` stream),
 * permissions asked and answered, and abort with its double `session.idle`.
 * A prompt with `run` calls the bash tool, which asks for permission.
 */
export async function startOpenCodeSimulator(options: OpenCodeSimulatorOptions = {}): Promise<OpenCodeSimulator> {
  const ids = new SeededIds(options.seed ?? 1);
  const sessions = new Map<string, Session>();
  const permissions = new Map<string, Pending>();
  const streams = new Set<ServerResponse>();
  let counter = 0;
  const id = (prefix: string) => `${prefix}_${ids.hex(9)}${(counter++).toString(16).padStart(3, '0')}${ids.hex(14)}`;

  function publish(type: string, properties: Json): void {
    const frame = `data: ${JSON.stringify({ id: id('evt'), type, properties })}\n\n`;
    for (const res of streams) res.write(frame);
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://opencode.invalid');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const body = () =>
      readJsonObject(req, () => new HttpError(400, { name: 'BadRequest', data: { message: 'Invalid JSON', kind: 'Payload' } }));
    if (method === 'GET' && path === '/global/health') return sendJson(res, 200, { healthy: true, version: VERSION });
    if (method === 'GET' && path === '/event') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' });
      // Live only: a connection sees what is published after it, never what came before.
      res.write(`data: ${JSON.stringify({ id: id('evt'), type: 'server.connected', properties: {} })}\n\n`);
      streams.add(res);
      res.on('close', () => streams.delete(res));
      return;
    }
    if (method === 'POST' && path === '/session') {
      const input = await body();
      const now = ids.now() * 1000;
      const directory = String(req.headers['x-opencode-directory'] ?? '/');
      const sessionId = id('ses');
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
      sessions.set(sessionId, { info, messages: [], busy: false });
      publish('session.created', { sessionID: sessionId, info });
      return sendJson(res, 200, info);
    }
    if (method === 'GET' && path === '/permission')
      return sendJson(
        res,
        200,
        [...permissions.values()].map((p) => p.payload),
      );
    const reply = /^\/permission\/([^/]+)\/reply$/.exec(path);
    if (method === 'POST' && reply) {
      const pending = permissions.get(reply[1] as string);
      if (!pending) throw new HttpError(404, { _tag: 'PermissionNotFoundError', message: `Permission not found: ${reply[1]}` });
      const input = await body();
      if (!['once', 'always', 'reject'].includes(String(input.reply)))
        throw new HttpError(400, { name: 'BadRequest', data: { message: 'reply must be once, always or reject', kind: 'Payload' } });
      permissions.delete(pending.id);
      pending.reply(String(input.reply));
      return sendJson(res, 200, true);
    }
    const m = /^\/session\/([^/]+)(?:\/(message|prompt_async|abort))?$/.exec(path);
    if (m) {
      const sessionId = m[1] as string;
      const sub = m[2];
      if (method === 'POST' && sub === 'abort') {
        const s = sessions.get(sessionId);
        if (s?.abort) s.abort();
        else {
          // Abort on an idle or unknown session still answers true and settles it.
          publish('session.status', { sessionID: sessionId, status: { type: 'idle' } });
          publish('session.idle', { sessionID: sessionId });
        }
        return sendJson(res, 200, true);
      }
      const session = sessions.get(sessionId);
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
        setImmediate(() => void runTurn(session, text));
        return;
      }
    }
    throw notFound(`No route for ${method} ${path}`);
  }

  async function runTurn(session: Session, text: string): Promise<void> {
    const sessionID = session.info.id as string;
    const time = () => ids.now() * 1000;
    let aborted!: () => void;
    const abort = new Promise<'aborted'>((resolve) => {
      aborted = () => resolve('aborted');
    });
    session.abort = aborted;
    session.busy = true;
    const user = {
      id: id('msg'),
      sessionID,
      role: 'user',
      time: { created: time() },
      agent: 'build',
      model: { providerID: 'mock', modelID: 'mock-model' },
    };
    const userText = { id: id('prt'), sessionID, messageID: user.id, type: 'text', text };
    session.messages.push({ info: user, parts: [userText] });
    publish('message.updated', { sessionID, info: user });
    publish('message.part.updated', { sessionID, part: userText, time: time() });
    // The first prompt settles the session's agent and model.
    session.info = { ...session.info, agent: 'build', model: { id: 'mock-model', providerID: 'mock', variant: 'default' } };
    publish('session.updated', { sessionID, info: session.info });
    publish('session.status', { sessionID, status: { type: 'busy' } });

    const idle = () => {
      publish('session.status', { sessionID, status: { type: 'idle' } });
      publish('session.idle', { sessionID });
    };
    /** OC4: every step opens a new assistant message, announced, then its step-start. */
    const openStep = (): Json => {
      const msg: Json = {
        id: id('msg'),
        sessionID,
        role: 'assistant',
        parentID: user.id,
        modelID: 'mock-model',
        providerID: 'mock',
        mode: 'build',
        agent: 'build',
        path: { cwd: session.info.directory, root: session.info.directory },
        cost: 0,
        tokens: { input: 10, output: 3, reasoning: 0, cache: { read: 0, write: 0 } },
        time: { created: time() },
      };
      publish('message.updated', { sessionID, info: msg });
      publish('message.part.updated', {
        sessionID,
        part: { id: id('prt'), sessionID, messageID: msg.id, type: 'step-start' },
        time: time(),
      });
      return msg;
    };
    /** OC3: step-finish, then the message with its finish, then with time.completed. */
    const closeStep = (msg: Json, reason: 'stop' | 'tool-calls') => {
      publish('message.part.updated', {
        sessionID,
        part: {
          id: id('prt'),
          sessionID,
          messageID: msg.id,
          type: 'step-finish',
          reason,
          cost: 0,
          tokens: { total: 13, ...(msg.tokens as Json) },
        },
        time: time(),
      });
      const tokens = { total: 13, ...(msg.tokens as Json) };
      publish('message.updated', { sessionID, info: { ...msg, tokens, finish: reason } });
      const done = { ...msg, tokens, finish: reason, time: { created: (msg.time as Json).created, completed: time() } };
      publish('message.updated', { sessionID, info: done });
      session.messages.push({ info: done, parts: [] });
    };
    const step = (reason: 'stop' | 'tool-calls', body: (messageID: string) => void) => {
      const msg = openStep();
      body(msg.id as string);
      closeStep(msg, reason);
    };
    const say = (messageID: string, reply: string) => {
      const part = { id: id('prt'), sessionID, messageID, type: 'text', text: '', time: { start: time() } };
      publish('message.part.updated', { sessionID, part, time: time() });
      for (const delta of reply.split(/(?<= )/))
        publish('message.part.delta', { sessionID, messageID, partID: part.id, field: 'text', delta });
      publish('message.part.updated', {
        sessionID,
        part: { ...part, text: reply, time: { start: part.time.start, end: time() } },
        time: time(),
      });
    };
    const finish = () => {
      delete session.abort;
      session.busy = false;
      publish('session.status', { sessionID, status: { type: 'busy' } });
      idle();
      session.info = { ...session.info, summary: { additions: 0, deletions: 0, files: 0 } };
      publish('session.updated', { sessionID, info: session.info });
      publish('session.diff', { sessionID, diff: [] });
      publish('message.updated', { sessionID, info: { ...user, summary: { diffs: [] } } });
    };

    if (/\bessay\b/i.test(text)) return writeEssay();
    if (!/\brun\b/i.test(text)) {
      step('stop', (messageID) => say(messageID, 'Hello from mock. '));
      return finish();
    }
    /** OC7: the error and a first idle, then the cut part (`endPart`) and the message's error, then a second idle. */
    function settleAbort(msg: Json, endPart: () => void): void {
      publish('session.error', { sessionID, error: { name: 'MessageAbortedError', data: { message: 'Aborted' } } });
      idle();
      endPart();
      publish('message.updated', {
        sessionID,
        info: {
          ...msg,
          error: { name: 'MessageAbortedError', data: { message: 'Aborted' } },
          time: { created: (msg.time as Json).created, completed: time() },
        },
      });
      delete session.abort;
      session.busy = false;
      idle();
    }

    /** A long reply written a word at a time, so an abort lands while its text streams (OC7 for a text part). */
    async function writeEssay(): Promise<void> {
      const msg = openStep();
      const messageID = msg.id as string;
      const part = { id: id('prt'), sessionID, messageID, type: 'text', text: '', time: { start: time() } };
      publish('message.part.updated', { sessionID, part, time: time() });
      let written = '';
      for (const word of ESSAY) {
        if ((await Promise.race([sleep(ESSAY_PACE_MS), abort])) === 'aborted') {
          // As the real server (1.18.33) ends a text part an abort cuts: with what was written, and its end time.
          return settleAbort(msg, () =>
            publish('message.part.updated', {
              sessionID,
              part: { ...part, text: written, time: { start: part.time.start, end: time() } },
              time: time(),
            }),
          );
        }
        written += word;
        publish('message.part.delta', { sessionID, messageID, partID: part.id, field: 'text', delta: word });
      }
      publish('message.part.updated', {
        sessionID,
        part: { ...part, text: written, time: { start: part.time.start, end: time() } },
        time: time(),
      });
      closeStep(msg, 'stop');
      finish();
    }

    // A tool step: the bash call asks for permission before it runs.
    const command = 'echo hello-from-tool';
    let decision: string | 'aborted' = 'once';
    const msg = openStep();
    const toolMessage = msg.id as string;
    const callID = `call_${ids.hex(8)}`;
    let toolPart: Json = {
      id: id('prt'),
      sessionID,
      messageID: toolMessage,
      type: 'tool',
      callID,
      tool: 'bash',
      state: { status: 'pending', input: {}, raw: '' },
    };
    publish('message.part.updated', { sessionID, part: toolPart, time: time() });
    toolPart = { ...toolPart, state: { status: 'running', input: { command, description: 'Print a greeting' }, time: { start: time() } } };
    publish('message.part.updated', { sessionID, part: toolPart, time: time() });
    /** The tool part ends in error: rejected, or aborted mid-permission. */
    const toolError = (error: string, extra: Json = {}) =>
      publish('message.part.updated', {
        sessionID,
        part: { ...toolPart, state: { status: 'error', input: { command }, error, ...extra, time: { start: time(), end: time() } } },
        time: time(),
      });
    const permissionID = id('per');
    const payload = {
      id: permissionID,
      sessionID,
      permission: 'bash',
      patterns: [command],
      metadata: { command },
      always: ['echo *'],
      tool: { messageID: toolMessage, callID },
    };
    const answered = new Promise<string>((resolve) =>
      permissions.set(permissionID, { id: permissionID, sessionID, payload, reply: resolve }),
    );
    publish('permission.asked', payload);
    decision = await Promise.race([answered, abort]);
    if (decision === 'aborted') {
      return settleAbort(msg, () => toolError('Tool execution aborted', { metadata: { interrupted: true } }));
    }
    publish('permission.replied', { sessionID, requestID: permissionID, reply: decision });
    if (decision === 'reject') {
      toolError('The user rejected permission to use this specific tool call.');
    } else {
      publish('message.part.updated', {
        sessionID,
        part: { ...toolPart, state: { ...(toolPart.state as Json), metadata: { output: '' } } },
        time: time(),
      });
      publish('message.part.updated', {
        sessionID,
        part: {
          ...toolPart,
          state: {
            status: 'completed',
            input: { command },
            output: 'hello-from-tool\n',
            title: command,
            metadata: { exit: 0, truncated: false },
            time: { start: time(), end: time() },
          },
        },
        time: time(),
      });
    }
    closeStep(msg, 'tool-calls');
    step('stop', (messageID) => say(messageID, decision === 'reject' ? 'The command was not run. ' : 'Tool said hello. '));
    finish();
  }

  const server = createServer((req, res) => {
    res.sendDate = false;
    route(req, res).catch((err: unknown) => {
      const e = err instanceof HttpError ? err : new HttpError(500, { name: 'UnknownError', data: { message: (err as Error).message } });
      if (res.headersSent) return res.end();
      sendJson(res, e.status, e.body);
    });
  });
  const { url } = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of streams) res.end();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
