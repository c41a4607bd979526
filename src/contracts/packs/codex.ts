import type { Pack } from '../pack.js';
import { eventually, exactlyOne, firstEvent, precedes, streamMeta } from '../rules.js';

const REF = 'native-server-transports.md §4';
const m = streamMeta(REF);

/** codex app-server over WebSocket: every frame of a session, both directions (client frames typed `client:<method>`). */
export const codexAppServer: Pack = {
  name: 'codex/app-server',
  description:
    'codex app-server sessions: handshake first, responses before their notifications, items opened before they complete, approvals resolved after they are asked.',
  turnStarts: [],
  payloads: {},
  rules: [
    firstEvent('client:initialize', m('initialize-first', 'initialize is the first message of a connection', 'CX1')),
    exactlyOne(['client:initialize'], m('initialize-once', 'initialize is sent exactly once per connection', 'CX1')),
    precedes('client:thread/start', 'thread/started', m('thread-started-after-start', 'thread/started follows a thread/start', 'CX2')),
    precedes('client:turn/start', 'turn/started', m('turn-started-after-start', 'turn/started follows a turn/start', 'CX3')),
    precedes('turn/started', 'turn/completed', m('completed-after-started', 'turn/completed follows turn/started', 'CX5')),
    eventually(
      'turn/completed',
      { after: 'turn/started' },
      m('turn-ends', 'every started turn completes (completed, interrupted or failed)', 'CX5, CX8'),
    ),
    precedes('item/started', 'item/completed', m('item-started-first', 'an item is started before it completes', 'CX6')),
    precedes('item/started', 'item/agentMessage/delta', m('delta-inside-item', 'deltas come inside a started item', 'CX6')),
    precedes(
      'item/commandExecution/requestApproval',
      'serverRequest/resolved',
      m('resolved-after-request', 'serverRequest/resolved follows the request it resolves', 'CX7, CX8'),
    ),
    precedes(
      'item/commandExecution/requestApproval',
      'client:response',
      m('answers-after-requests', "the client's answers follow the server requests they answer", 'CX7'),
    ),
  ],
};
