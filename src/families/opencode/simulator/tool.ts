import { closeStep, finish, openStep, say, settleAbort, step, type Turn } from './steps.js';
import type { Json } from './world.js';

const COMMAND = 'echo hello-from-tool';

/** A tool step: the bash call asks for permission before it runs; rejected, it errors; aborted while asked, the turn settles. */
export async function runTool(t: Turn): Promise<void> {
  const { w, sessionID } = t;
  const msg = openStep(t);
  const toolMessage = msg.id as string;
  const callID = `call_${w.ids.hex(8)}`;
  let toolPart: Json = {
    id: w.id('prt'),
    sessionID,
    messageID: toolMessage,
    type: 'tool',
    callID,
    tool: 'bash',
    state: { status: 'pending', input: {}, raw: '' },
  };
  w.publish('message.part.updated', { sessionID, part: toolPart, time: t.time() });
  toolPart = {
    ...toolPart,
    state: { status: 'running', input: { command: COMMAND, description: 'Print a greeting' }, time: { start: t.time() } },
  };
  w.publish('message.part.updated', { sessionID, part: toolPart, time: t.time() });
  /** The tool part ends in error: rejected, or aborted mid-permission. */
  const toolError = (error: string, extra: Json = {}) =>
    w.publish('message.part.updated', {
      sessionID,
      part: {
        ...toolPart,
        state: { status: 'error', input: { command: COMMAND }, error, ...extra, time: { start: t.time(), end: t.time() } },
      },
      time: t.time(),
    });
  const decision = await askPermission(t, toolMessage, callID);
  if (decision === 'aborted') return settleAbort(t, msg, () => toolError('Tool execution aborted', { metadata: { interrupted: true } }));
  if (decision === 'reject') toolError('The user rejected permission to use this specific tool call.');
  else toolRan(t, toolPart);
  closeStep(t, msg, 'tool-calls');
  step(t, 'stop', (messageID) => say(t, messageID, decision === 'reject' ? 'The command was not run. ' : 'Tool said hello. '));
  finish(t);
}

/** Asks for permission (`permission.asked`): the client's reply (`permission.replied` once it came), or 'aborted'. */
async function askPermission(t: Turn, messageID: string, callID: string): Promise<string> {
  const { w, sessionID } = t;
  const permissionID = w.id('per');
  const payload = {
    id: permissionID,
    sessionID,
    permission: 'bash',
    patterns: [COMMAND],
    metadata: { command: COMMAND },
    always: ['echo *'],
    tool: { messageID, callID },
  };
  const answered = new Promise<string>((resolve) =>
    w.permissions.set(permissionID, { id: permissionID, sessionID, payload, reply: resolve }),
  );
  w.publish('permission.asked', payload);
  const decision = await Promise.race([answered, t.abort]);
  if (decision !== 'aborted') w.publish('permission.replied', { sessionID, requestID: permissionID, reply: decision });
  return decision;
}

/** The command ran: its output metadata first, then the completed state. */
function toolRan(t: Turn, toolPart: Json): void {
  const { w, sessionID } = t;
  w.publish('message.part.updated', {
    sessionID,
    part: { ...toolPart, state: { ...(toolPart.state as Json), metadata: { output: '' } } },
    time: t.time(),
  });
  const state = {
    status: 'completed',
    input: { command: COMMAND },
    output: 'hello-from-tool\n',
    title: COMMAND,
    metadata: { exit: 0, truncated: false },
    time: { start: t.time(), end: t.time() },
  };
  w.publish('message.part.updated', { sessionID, part: { ...toolPart, state }, time: t.time() });
}
