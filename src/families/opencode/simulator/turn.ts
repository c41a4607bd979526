import { finish, say, step, type Turn, writeEssay } from './steps.js';
import { runTool } from './tool.js';
import type { Session, World } from './world.js';

/** One turn: the user's message, then a text step, an essay an abort may cut, or a tool step (`run`) that asks for permission. */
export async function runTurn(w: World, session: Session, text: string): Promise<void> {
  const sessionID = session.info.id as string;
  const time = () => w.ids.now() * 1000;
  let aborted!: () => void;
  const abort = new Promise<'aborted'>((resolve) => {
    aborted = () => resolve('aborted');
  });
  session.abort = aborted;
  session.busy = true;
  const user = {
    id: w.id('msg'),
    sessionID,
    role: 'user',
    time: { created: time() },
    agent: 'build',
    model: { providerID: 'mock', modelID: 'mock-model' },
  };
  const userText = { id: w.id('prt'), sessionID, messageID: user.id, type: 'text', text };
  session.messages.push({ info: user, parts: [userText] });
  w.publish('message.updated', { sessionID, info: user });
  w.publish('message.part.updated', { sessionID, part: userText, time: time() });
  // The first prompt settles the session's agent and model.
  session.info = { ...session.info, agent: 'build', model: { id: 'mock-model', providerID: 'mock', variant: 'default' } };
  w.publish('session.updated', { sessionID, info: session.info });
  w.publish('session.status', { sessionID, status: { type: 'busy' } });
  const t: Turn = { w, session, sessionID, user, abort, time };
  if (/\bessay\b/i.test(text)) return writeEssay(t);
  if (!/\brun\b/i.test(text)) {
    step(t, 'stop', (messageID) => say(t, messageID, 'Hello from mock. '));
    return finish(t);
  }
  return runTool(t);
}
