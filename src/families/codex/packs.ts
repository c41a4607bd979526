import { z } from 'zod';
import type { Pack } from '../../contracts/index.js';
import { assembles, eventually, exactlyOne, firstEvent, precedes, progression, streamMeta } from '../../contracts/index.js';

const REF = 'native-server-transports.md §4';
const m = streamMeta(REF);
/** Two threads on one connection run their turns side by side: a thread's frames are checked on their own. */
const thread = (name: string, description: string, source: string) => ({ ...m(name, description, source), by: 'params.threadId' });

const str = z.string();
const id = z.union([z.number(), z.string()]);
/** A notification: `{method, params}` (live ones also carry `emittedAtMs`). */
const notification = (params: z.ZodType) => z.looseObject({ method: str, params });
const ids = { threadId: str, turnId: str };
/** §3 ThreadItem: typed, with an id; the kinds the probes read carry what they read. */
const item = z
  .looseObject({ type: str, id: str })
  .refine((i) => i.type !== 'agentMessage' || typeof (i as { text?: unknown }).text === 'string', {
    error: 'an agentMessage carries its text',
  })
  .refine((i) => i.type !== 'commandExecution' || typeof (i as { status?: unknown }).status === 'string', {
    error: 'a commandExecution carries its status',
  })
  .refine(
    (i) => {
      const c = i as { type: string; status?: unknown; exitCode?: unknown; aggregatedOutput?: unknown };
      return (
        c.type !== 'commandExecution' ||
        c.status !== 'completed' ||
        (typeof c.exitCode === 'number' && typeof c.aggregatedOutput === 'string')
      );
    },
    { error: 'a completed command carries its exitCode and aggregatedOutput (CX7)' },
  );
const turn = z.looseObject({ id: str, status: z.enum(['inProgress', 'completed', 'interrupted', 'failed']), items: z.array(item) });
const status = z.looseObject({ type: z.enum(['notLoaded', 'idle', 'systemError', 'active']) });

/**
 * §3 payloads of the messages a client relies on. The protocol has far more
 * methods (the pinned binary generates them all: `loadCodexProtocol`), so the
 * vocabulary stays open: a method not listed here is not an error.
 */
const codexPayloads: Record<string, z.ZodType> = {
  response: z
    .looseObject({ id })
    .refine((m) => 'result' in m !== 'error' in m, { error: 'a response carries exactly one of result and error' }),
  'thread/started': notification(z.looseObject({ thread: z.looseObject({ id: str }) })),
  'thread/status/changed': notification(z.looseObject({ threadId: str, status })),
  'turn/started': notification(z.looseObject({ threadId: str, turn })),
  'turn/completed': notification(z.looseObject({ threadId: str, turn })),
  'item/started': notification(z.looseObject({ ...ids, item })),
  'item/completed': notification(z.looseObject({ ...ids, item })),
  'item/agentMessage/delta': notification(z.looseObject({ ...ids, itemId: str, delta: str })),
  'serverRequest/resolved': notification(z.looseObject({ threadId: str, requestId: id })),
  'item/commandExecution/requestApproval': z.looseObject({ id, method: str, params: z.looseObject({ ...ids, itemId: str }) }),
};

/** §3 results of the requests a client makes. */
const codexResults: Record<string, z.ZodType> = {
  initialize: z.looseObject({ userAgent: str }),
  'thread/start': z.looseObject({ thread: z.looseObject({ id: str }) }),
  'thread/resume': z.looseObject({ thread: z.looseObject({ id: str }) }),
  'turn/start': z.looseObject({ turn: z.looseObject({ id: str, status: str }) }),
  'turn/steer': z.looseObject({ turnId: str }),
  'turn/interrupt': z.looseObject({}),
};

/** codex app-server over WebSocket: every frame of a session, both directions (client frames typed `client:<method>`). */
export const codexAppServer: Pack = {
  name: 'codex/app-server',
  description:
    'codex app-server sessions: handshake first, responses before their notifications, items opened before they complete, approvals resolved after they are asked.',
  turnStarts: [],
  payloads: codexPayloads,
  results: codexResults,
  openVocabulary: true,
  // CX5, CX6 and §3: deltas may be zero or more; usage, rate limits, read state and warnings are informational.
  optional: [
    'item/agentMessage/delta',
    'thread/tokenUsage/updated',
    'account/rateLimits/updated',
    'thread/readState/changed',
    'warning',
    'configWarning',
    'remoteControl/status/changed',
    'thread/settings/updated',
    // Sent to a thread's connections after a thread/resume on another one (0.171.0): where it lands among the
    // frames of the holding connection's next turn is the server's race, seen live and through the proxy alike.
    'thread/goal/cleared',
  ],
  rules: [
    firstEvent('client:initialize', m('initialize-first', 'initialize is the first message of a connection', 'CX1')),
    exactlyOne(['client:initialize'], m('initialize-once', 'initialize is sent exactly once per connection', 'CX1')),
    precedes('client:thread/start', 'thread/started', m('thread-started-after-start', 'thread/started follows a thread/start', 'CX2')),
    precedes(
      'client:turn/start',
      'turn/started',
      thread('turn-started-after-start', 'turn/started follows a turn/start on its thread', 'CX3'),
    ),
    precedes(
      'turn/started',
      'turn/completed',
      thread('completed-after-started', 'turn/completed follows turn/started on its thread', 'CX5'),
    ),
    eventually(
      'turn/completed',
      { after: 'turn/started' },
      thread('turn-ends', 'every started turn completes (completed, interrupted or failed)', 'CX5, CX8'),
    ),
    progression(
      '*',
      {
        key: 'params.turnId|params.turn.id',
        field: 'method',
        stages: [
          ['turn/started'],
          ['item/started', 'item/agentMessage/delta', 'item/completed', 'item/commandExecution/requestApproval'],
          ['turn/completed'],
        ],
      },
      m('turn-frames-in-order', "a turn's items come between its turn/started and its turn/completed", 'CX5, CX6'),
    ),
    precedes('item/started', 'item/completed', {
      ...m('item-started-first', 'an item is started before it completes', 'CX6'),
      by: 'params.item.id',
    }),
    precedes('item/started', 'item/agentMessage/delta', {
      ...m('delta-inside-item', 'deltas come inside a started item', 'CX6'),
      by: 'params.itemId|params.item.id',
    }),
    assembles(
      { event: 'item/agentMessage/delta', key: 'params.itemId', field: 'params.delta' },
      { event: 'item/completed[params.item.type=agentMessage]', key: 'params.item.id', field: 'params.item.text' },
      // Per turn: a real server reuses an item id in the next turn (with our mock model, msg_mock<n> again).
      { ...m('deltas-add-up', "an agentMessage's deltas, in order, are its completed text", 'CX6, OM2'), by: 'params.turnId' },
    ),
    precedes(
      'item/commandExecution/requestApproval',
      'serverRequest/resolved',
      thread('resolved-after-request', 'serverRequest/resolved follows the request it resolves', 'CX7, CX8'),
    ),
    precedes(
      'item/commandExecution/requestApproval',
      'client:response',
      m('answers-after-requests', "the client's answers follow the server requests they answer", 'CX7'),
    ),
  ],
};
