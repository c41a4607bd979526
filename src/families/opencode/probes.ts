import { unsupported as no, supported as ok, type SuiteObservation } from '../../manifest/observation.js';
import { ServerResponseError } from '../kit/errors.js';
import type { JsonClient } from '../kit/json-client.js';
import type { StreamEvent, StreamReader } from '../kit/stream-reader.js';

export const OPENCODE_PROBE_NAMES = ['text_turn', 'tool_approved', 'tool_rejected', 'abort', 'two_sessions', 'abort_text'] as const;
export type OpenCodeProbeName = (typeof OPENCODE_PROBE_NAMES)[number];

export interface OpenCodeProbe {
  name: OpenCodeProbeName;
  priority: 'P0' | 'P1';
  run(client: JsonClient, turnMs: number): Promise<SuiteObservation>;
}

const props = (e: StreamEvent | undefined) => (e?.data.properties ?? {}) as Record<string, unknown>;
const TOOL_PROMPT = 'Please run: echo hello-from-tool';

/** Opens opencode's /event stream (live-only: subscribe before anything happens) and reads its server.connected. */
async function subscribe(client: JsonClient, turnMs: number): Promise<StreamReader> {
  const events = await client.stream('GET', '/event');
  if ((await events.waitFor(() => true, turnMs))?.type !== 'server.connected') throw new Error('/event did not open with server.connected');
  return events;
}

/** Creates a session and posts its prompt; `mine` selects that session's events of a type. */
async function startSession(client: JsonClient, text: string) {
  const created = await client.call('POST', '/session', { title: 'tapedeck bench' });
  const sessionID = created.json.id as string;
  if (created.status !== 200 || !sessionID) throw new ServerResponseError(created.status, 'POST /session', '');
  const posted = await client.call('POST', `/session/${sessionID}/prompt_async`, { parts: [{ type: 'text', text }] });
  if (posted.status !== 204) throw new ServerResponseError(posted.status, 'prompt_async', '');
  const mine =
    (type: string, extra: (e: StreamEvent) => boolean = () => true) =>
    (e: StreamEvent) =>
      // An event that names no session concerns every session, as the contract's scoping reads it (session.error's sessionID is optional).
      e.type === type && (props(e).sessionID ?? sessionID) === sessionID && extra(e);
  return { sessionID, mine };
}

/** Subscribes first, then creates a session and posts the prompt; returns the session's events as they come. */
async function startTurn(client: JsonClient, text: string, turnMs: number) {
  const events = await subscribe(client, turnMs);
  return { events, ...(await startSession(client, text)) };
}

const toolState = (e: StreamEvent) => (props(e).part as { type?: string; state?: { status?: string } } | undefined)?.state?.status;
const isToolPart = (e: StreamEvent) => (props(e).part as { type?: string } | undefined)?.type === 'tool';

/** The turn ends at the session's idle; an aborted turn has two. */
const idles = (events: StreamReader, sessionID: string) =>
  events.events.filter((e) => e.type === 'session.idle' && props(e).sessionID === sessionID).length;

async function toolTurn(client: JsonClient, turnMs: number, reply: 'once' | 'reject') {
  const { events, sessionID, mine } = await startTurn(client, TOOL_PROMPT, turnMs);
  const asked = await events.waitFor(mine('permission.asked'), turnMs);
  if (!asked) {
    events.close();
    return { error: 'no permission.asked before the turn ended' };
  }
  const answered = await client.call('POST', `/permission/${String(props(asked).id)}/reply`, { reply });
  await events.waitFor(mine('session.idle'), turnMs);
  events.close();
  const tool = events.events
    .filter(mine('message.part.updated', (e) => (props(e).part as { type?: string } | undefined)?.type === 'tool'))
    .map((e) => (props(e).part as { state?: { status: string; output?: string; error?: string } }).state)
    .at(-1);
  const replied = events.events.find(mine('permission.replied'));
  return { answered, tool, replied, sessionID, events };
}

/** The opencode probe suite. */
export const OPENCODE_PROBES: readonly OpenCodeProbe[] = [
  {
    name: 'text_turn',
    priority: 'P0',
    async run(client, turnMs) {
      const { events, mine } = await startTurn(client, 'Say hi.', turnMs);
      const idle = await events.waitFor(mine('session.idle'), turnMs);
      events.close();
      if (!idle) return no('no session.idle: the turn never ended');
      // OC10: the part updates carry the cumulative text; deltas need not be read.
      const text = events.events
        .filter(mine('message.part.updated', (e) => (props(e).part as { type?: string } | undefined)?.type === 'text'))
        .map((e) => props(e).part as { text: string; messageID: string; time?: { end?: number } })
        .filter((p) => p.time?.end !== undefined)
        .map((p) => p.text)
        .at(-1);
      return text ? ok(`session.idle; reply ${JSON.stringify(text)}`) : no('no finished text part');
    },
  },
  {
    name: 'tool_approved',
    priority: 'P0',
    async run(client, turnMs) {
      const r = await toolTurn(client, turnMs, 'once');
      if ('error' in r) return no(r.error ?? 'no permission');
      if (r.answered.status !== 200) return no(`the permission reply answered ${r.answered.status}`);
      if (r.tool?.status !== 'completed') return no(`the tool ended ${String(r.tool?.status)}`);
      return ok(`permission once; bash completed with ${JSON.stringify(r.tool.output)}`);
    },
  },
  {
    name: 'tool_rejected',
    priority: 'P0',
    async run(client, turnMs) {
      const r = await toolTurn(client, turnMs, 'reject');
      if ('error' in r) return no(r.error ?? 'no permission');
      if (r.tool?.status !== 'error') return no(`a rejected tool ended ${String(r.tool?.status)}`);
      return ok(`permission rejected; the tool part ended in error: ${String(r.tool.error)}`);
    },
  },
  {
    name: 'abort',
    priority: 'P0',
    async run(client, turnMs) {
      const { events, sessionID, mine } = await startTurn(client, TOOL_PROMPT, turnMs);
      const asked = await events.waitFor(mine('permission.asked'), turnMs);
      if (!asked) {
        events.close();
        return no('no permission.asked to abort at');
      }
      const aborted = await client.call('POST', `/session/${sessionID}/abort`);
      // OC7: an abort settles twice; wait for the tool's error, which comes between the two idles.
      const toolError = await events.waitFor(
        mine('message.part.updated', (e) => (props(e).part as { state?: { status?: string } } | undefined)?.state?.status === 'error'),
        turnMs,
      );
      if (!toolError) {
        events.close();
        return no('the pending tool never ended in error after the abort');
      }
      // OC7: after the tool's error comes the second idle.
      const settled = await events.waitFor(mine('session.idle'), turnMs, events.events.indexOf(toolError));
      events.close();
      const error = events.events.find(mine('session.error'));
      const name = (props(error).error as { name?: string } | undefined)?.name;
      if (aborted.status !== 200) return no(`abort answered ${aborted.status}`);
      if (!settled) return no('no session.idle after the aborted tool');
      return ok(`${name ?? 'session.error'}; the tool ended in error; ${idles(events, sessionID)} session.idle events`);
    },
  },
  {
    // Two sessions on one /event connection, both asking for the same tool: one answered always, the other once.
    name: 'two_sessions',
    priority: 'P1',
    async run(client, turnMs) {
      const events = await subscribe(client, turnMs);
      const a = await startSession(client, TOOL_PROMPT);
      const b = await startSession(client, TOOL_PROMPT);
      const askedA = await events.waitFor(a.mine('permission.asked'), turnMs);
      const askedB = await events.waitFor(b.mine('permission.asked'), turnMs);
      if (!askedA || !askedB) {
        events.close();
        return no(`no permission.asked for session ${askedA ? 'B' : 'A'}`);
      }
      const replies = [
        await client.call('POST', `/permission/${String(props(askedA).id)}/reply`, { reply: 'always' }),
        await client.call('POST', `/permission/${String(props(askedB).id)}/reply`, { reply: 'once' }),
      ];
      const idleA = await events.waitFor(a.mine('session.idle'), turnMs);
      const idleB = await events.waitFor(b.mine('session.idle'), turnMs);
      events.close();
      if (replies.some((r) => r.status !== 200)) return no(`a permission reply answered ${replies.map((r) => r.status).join(', ')}`);
      if (!idleA || !idleB) return no(`session ${idleA ? 'B' : 'A'} never went idle`);
      const ended = [a, b].map((s) => events.events.filter(s.mine('message.part.updated', isToolPart)).map(toolState).at(-1));
      if (ended.some((st) => st !== 'completed')) return no(`the tools ended ${ended.join(' and ')}`);
      return ok('two sessions side by side: permission always and once, both tools completed, each session idle');
    },
  },
  {
    // An abort while the reply is streaming text (the mock model writes its essay slowly).
    name: 'abort_text',
    priority: 'P1',
    async run(client, turnMs) {
      const { events, sessionID, mine } = await startTurn(client, 'Write an essay about computing history.', turnMs);
      // The reply's text part opens (with its start time; the prompt's part has none) before any delta, and deltas may not come (OC10).
      const writing = (e: StreamEvent) => {
        const part = props(e).part as { type?: string; time?: { start?: number } } | undefined;
        return part?.type === 'text' && part.time?.start !== undefined;
      };
      const streaming = await events.waitFor(mine('message.part.updated', writing), turnMs);
      if (!streaming) {
        events.close();
        return no('no reply text to abort at');
      }
      const aborted = await client.call('POST', `/session/${sessionID}/abort`);
      const error = await events.waitFor(mine('session.error'), turnMs);
      // OC7: an abort settles twice; the second idle comes after the aborted message.
      const first = error ? await events.waitFor(mine('session.idle'), turnMs, events.events.indexOf(error)) : undefined;
      const second = first ? await events.waitFor(mine('session.idle'), turnMs, events.events.indexOf(first) + 1) : undefined;
      events.close();
      if (aborted.status !== 200) return no(`abort answered ${aborted.status}`);
      if (!error) return no('no session.error after the abort');
      if (!first) return no('no session.idle after the abort');
      const name = (props(error).error as { name?: string } | undefined)?.name;
      return ok(`${name ?? 'session.error'} mid-text; ${second ? 'two' : 'one'} session.idle events`);
    },
  },
];
