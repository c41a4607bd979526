import { setTimeout as sleep } from 'node:timers/promises';
import type { Json, Session, World } from './world.js';

/** The long reply: words 25 ms apart, as the mock model paces its essay, so an abort lands mid-text. */
const ESSAY = Array.from({ length: 40 }, (_, i) => `${i === 0 ? 'Computing' : 'history'} `);
const ESSAY_PACE_MS = 25;

/** What a turn's steps share: the world, the session, the user's message, and the abort that may come. */
export interface Turn {
  w: World;
  session: Session;
  sessionID: string;
  user: Json;
  abort: Promise<'aborted'>;
  time(): number;
}

export function idle(t: Turn): void {
  t.w.publish('session.status', { sessionID: t.sessionID, status: { type: 'idle' } });
  t.w.publish('session.idle', { sessionID: t.sessionID });
}

/** OC4: every step opens a new assistant message, announced, then its step-start. */
export function openStep(t: Turn): Json {
  const { w, sessionID, session } = t;
  const msg: Json = {
    id: w.id('msg'),
    sessionID,
    role: 'assistant',
    parentID: t.user.id,
    modelID: 'mock-model',
    providerID: 'mock',
    mode: 'build',
    agent: 'build',
    path: { cwd: session.info.directory, root: session.info.directory },
    cost: 0,
    tokens: { input: 10, output: 3, reasoning: 0, cache: { read: 0, write: 0 } },
    time: { created: t.time() },
  };
  w.publish('message.updated', { sessionID, info: msg });
  w.publish('message.part.updated', {
    sessionID,
    part: { id: w.id('prt'), sessionID, messageID: msg.id, type: 'step-start' },
    time: t.time(),
  });
  return msg;
}

/** OC3: step-finish, then the message with its finish, then with time.completed. */
export function closeStep(t: Turn, msg: Json, reason: 'stop' | 'tool-calls'): void {
  const { w, sessionID } = t;
  w.publish('message.part.updated', {
    sessionID,
    part: {
      id: w.id('prt'),
      sessionID,
      messageID: msg.id,
      type: 'step-finish',
      reason,
      cost: 0,
      tokens: { total: 13, ...(msg.tokens as Json) },
    },
    time: t.time(),
  });
  const tokens = { total: 13, ...(msg.tokens as Json) };
  w.publish('message.updated', { sessionID, info: { ...msg, tokens, finish: reason } });
  const done = { ...msg, tokens, finish: reason, time: { created: (msg.time as Json).created, completed: t.time() } };
  w.publish('message.updated', { sessionID, info: done });
  t.session.messages.push({ info: done, parts: [] });
}

export function step(t: Turn, reason: 'stop' | 'tool-calls', body: (messageID: string) => void): void {
  const msg = openStep(t);
  body(msg.id as string);
  closeStep(t, msg, reason);
}

/** A text part streamed in deltas, then updated whole with its end time. */
export function say(t: Turn, messageID: string, reply: string): void {
  const { w, sessionID } = t;
  const part = { id: w.id('prt'), sessionID, messageID, type: 'text', text: '', time: { start: t.time() } };
  w.publish('message.part.updated', { sessionID, part, time: t.time() });
  for (const delta of reply.split(/(?<= )/))
    w.publish('message.part.delta', { sessionID, messageID, partID: part.id, field: 'text', delta });
  w.publish('message.part.updated', {
    sessionID,
    part: { ...part, text: reply, time: { start: part.time.start, end: t.time() } },
    time: t.time(),
  });
}

/** The turn is over: busy once more, idle, the session's summary and diff, the user's message summarised. */
export function finish(t: Turn): void {
  const { w, sessionID, session } = t;
  delete session.abort;
  session.busy = false;
  w.publish('session.status', { sessionID, status: { type: 'busy' } });
  idle(t);
  session.info = { ...session.info, summary: { additions: 0, deletions: 0, files: 0 } };
  w.publish('session.updated', { sessionID, info: session.info });
  w.publish('session.diff', { sessionID, diff: [] });
  w.publish('message.updated', { sessionID, info: { ...t.user, summary: { diffs: [] } } });
}

/** OC7: the error and a first idle, then the cut part (`endPart`) and the message's error, then a second idle. */
export function settleAbort(t: Turn, msg: Json, endPart: () => void): void {
  const { w, sessionID } = t;
  w.publish('session.error', { sessionID, error: { name: 'MessageAbortedError', data: { message: 'Aborted' } } });
  idle(t);
  endPart();
  const error = { name: 'MessageAbortedError', data: { message: 'Aborted' } };
  w.publish('message.updated', { sessionID, info: { ...msg, error, time: { created: (msg.time as Json).created, completed: t.time() } } });
  delete t.session.abort;
  t.session.busy = false;
  idle(t);
}

/** A long reply written a word at a time, so an abort lands while its text streams (OC7 for a text part). */
export async function writeEssay(t: Turn): Promise<void> {
  const { w, sessionID } = t;
  const msg = openStep(t);
  const messageID = msg.id as string;
  const part = { id: w.id('prt'), sessionID, messageID, type: 'text', text: '', time: { start: t.time() } };
  w.publish('message.part.updated', { sessionID, part, time: t.time() });
  let written = '';
  const partDone = () =>
    w.publish('message.part.updated', {
      sessionID,
      part: { ...part, text: written, time: { start: part.time.start, end: t.time() } },
      time: t.time(),
    });
  for (const word of ESSAY) {
    // As the real server (1.18.33) ends a text part an abort cuts: with what was written, and its end time.
    if ((await Promise.race([sleep(ESSAY_PACE_MS), t.abort])) === 'aborted') return settleAbort(t, msg, partDone);
    written += word;
    w.publish('message.part.delta', { sessionID, messageID, partID: part.id, field: 'text', delta: word });
  }
  partDone();
  closeStep(t, msg, 'stop');
  finish(t);
}
