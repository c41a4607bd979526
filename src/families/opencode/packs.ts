import { z } from 'zod';
import type { Pack } from '../../contracts/index.js';
import { assembles, eventually, exactlyOne, firstEvent, never, precedes, progression, streamMeta } from '../../contracts/index.js';

const REF = 'native-server-transports.md §4';
const m = streamMeta(REF);
/** Every event of a session names it: two sessions on one /event connection are checked each on its own. */
const s = (name: string, description: string, source: string) => ({ ...m(name, description, source), by: 'properties.sessionID' });

const envelope = (type: string, properties: z.ZodType) => z.looseObject({ id: z.string(), type: z.literal(type), properties });
const session = { sessionID: z.string() };
/** Every part names its session, message and type; a tool part also carries its state. */
const part = z
  .looseObject({ id: z.string(), sessionID: z.string(), messageID: z.string(), type: z.string() })
  .refine((p) => p.type !== 'tool' || typeof (p as { state?: { status?: unknown } }).state?.status === 'string', {
    error: 'a tool part carries state.status',
  });

/** Housekeeping the real server sends between turns (§2: noise a filter must tolerate); any payload. */
const NOISE = ['plugin.added', 'catalog.updated', 'reference.updated', 'integration.updated'] as const;

/** Payloads of the /event envelopes a simulator and a driver rely on (§2 event catalog and shapes). */
const opencodePayloads: Record<string, z.ZodType> = {
  'server.connected': envelope('server.connected', z.looseObject({})),
  'server.heartbeat': envelope('server.heartbeat', z.looseObject({})),
  'session.created': envelope('session.created', z.looseObject({ ...session, info: z.looseObject({ id: z.string() }) })),
  'session.updated': envelope('session.updated', z.looseObject({ ...session, info: z.looseObject({ id: z.string() }) })),
  'session.deleted': envelope('session.deleted', z.looseObject({ ...session, info: z.looseObject({ id: z.string() }) })),
  'message.updated': envelope(
    'message.updated',
    z.looseObject({ ...session, info: z.looseObject({ id: z.string(), role: z.enum(['user', 'assistant']) }) }),
  ),
  'message.part.updated': envelope('message.part.updated', z.looseObject({ ...session, part })),
  'message.part.delta': envelope(
    'message.part.delta',
    z.looseObject({ ...session, messageID: z.string(), partID: z.string(), field: z.string(), delta: z.string() }),
  ),
  'session.status': envelope(
    'session.status',
    z.looseObject({ ...session, status: z.looseObject({ type: z.enum(['idle', 'busy', 'retry']) }) }),
  ),
  'session.idle': envelope('session.idle', z.looseObject(session)),
  'session.diff': envelope('session.diff', z.looseObject({ ...session, diff: z.array(z.unknown()) })),
  'session.error': envelope(
    'session.error',
    z.looseObject({ sessionID: z.string().optional(), error: z.looseObject({ name: z.string() }).optional() }),
  ),
  'permission.asked': envelope(
    'permission.asked',
    z.looseObject({ id: z.string(), ...session, permission: z.string(), patterns: z.array(z.string()), always: z.array(z.string()) }),
  ),
  'permission.replied': envelope(
    'permission.replied',
    z.looseObject({ ...session, requestID: z.string(), reply: z.enum(['once', 'always', 'reject']) }),
  ),
  ...Object.fromEntries(NOISE.map((type) => [type, envelope(type, z.unknown())])),
};

/** `opencode serve`'s live `/event` stream: data-only `{id, type, properties}` envelopes. */
export const opencodeEvents: Pack = {
  name: 'opencode/events',
  description:
    'opencode /event: server.connected first; per session, busy before idle, every busy settles in session.idle, permissions replied after they are asked.',
  turnStarts: [{ method: 'POST', path: /\/session\/[^/]+\/prompt_async$/ }],
  routes: [/\/event$/],
  payloads: opencodePayloads,
  optional: ['server.heartbeat', 'message.part.delta', ...NOISE],
  noise: ['server.heartbeat', ...NOISE],
  rules: [
    firstEvent('server.connected', m('connected-first', 'server.connected is the first event of every connection', 'OC1')),
    exactlyOne(['server.connected'], m('connected-once', 'server.connected is sent once per connection', 'OC1')),
    // An abort of a session that is not busy (omnigent's transport does it after a restart) sends an idle status,
    // then session.idle, with no busy before: what holds is that a status comes first.
    precedes(
      'session.status',
      'session.idle',
      s(
        'idle-after-status',
        'session.idle follows a status of its session (busy, or idle for an abort of an idle session)',
        'OC2, OC6, OC7',
      ),
    ),
    eventually(
      'session.idle',
      { after: 'session.status[properties.status.type=busy]' },
      s('busy-settles', 'a busy session ends in session.idle', 'OC6, OC7'),
    ),
    precedes('message.part.updated', 'message.part.delta', s('delta-after-part', 'a part is announced before its deltas', 'OC3')),
    // OC10: the part updates carry the whole text; the one with time.end is final (an aborted part gets one too, OC7).
    assembles(
      { event: 'message.part.delta[properties.field=text]', key: 'properties.partID', field: 'properties.delta' },
      { event: 'message.part.updated[properties.part.time.end]', key: 'properties.part.id', field: 'properties.part.text' },
      s('deltas-add-up', "a text part's deltas, in order, are the text of its final update, and none comes after it", 'OC3, OC10'),
    ),
    progression(
      'message.part.updated[properties.part.type=tool]',
      { key: 'properties.part.id', field: 'properties.part.state.status', stages: [['pending'], ['running'], ['completed', 'error']] },
      s('tool-state-forward', "a tool part's state goes pending, running, then completed or error, never back", 'OC5, OC7'),
    ),
    precedes(
      'permission.asked',
      'permission.replied',
      s('replied-after-asked', 'permission.replied follows the permission.asked of its session', 'OC5'),
    ),
    eventually(
      'session.idle',
      { after: 'message.part.updated[properties.part.state.status=error]' },
      s('idle-after-tool-error', 'a tool that ended in error (rejected, aborted) is followed by session.idle', 'OC7'),
    ),
    // An aborted turn sends its last parts after its first session.idle, then idles again (OC7): what holds of every
    // turn is that its text is settled by an idle after it.
    eventually(
      'session.idle',
      { after: 'message.part.updated[properties.part.type=text]' },
      s(
        'text-settles-in-idle',
        "every text part of a session is followed by a session.idle (an aborted turn's comes after its first)",
        'OC6, OC7',
      ),
    ),
    // The session's next turn starts with its user message; a late user message.updated (OC6 housekeeping) only starts over early.
    never(
      'message.part.updated[properties.part.state.status=completed]',
      { after: 'session.idle', until: 'message.updated[properties.info.role=user]' },
      s(
        'no-tool-result-after-idle',
        'a tool completes before the session.idle that ends its turn (only an aborted tool errors after it)',
        'OC6, OC7',
      ),
    ),
    eventually(
      'session.idle',
      { after: 'session.error' },
      s('idle-after-error', 'a session error (an abort) is followed by session.idle', 'OC7'),
    ),
  ],
};
