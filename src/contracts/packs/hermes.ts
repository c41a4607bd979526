import type { Pack } from '../pack.js';
import { hermesSessionPayloads } from '../payloads.js';
import { exactlyOne, firstEvent, never, pairedBy, precedes, terminal } from '../rules.js';

const REF = 'hermes-gateway-api.md, Ordering invariants';

export const hermesSessionStream: Pack = {
  name: 'hermes/session-stream',
  description: 'POST /api/sessions/{id}/chat/stream: run.started, message.started, paired tool events, one terminal, done last.',
  turnStarts: [{ method: 'POST', path: /\/api\/sessions\/[^/]+\/chat\/stream$/ }],
  payloads: hermesSessionPayloads,
  rules: [
    firstEvent('run.started', { name: 'opens-with-run-started', description: 'the stream opens with run.started', source: `${REF} 1` }),
    precedes('run.started', 'message.started', {
      name: 'message-after-run',
      description: 'run.started comes before message.started',
      source: `${REF} 10`,
      scope: 'stream',
    }),
    precedes('message.started', 'assistant.delta', {
      name: 'delta-after-message',
      description: 'message.started comes before any assistant.delta',
      source: `${REF} 10`,
      scope: 'stream',
    }),
    precedes('message.started', 'tool.started', {
      name: 'tools-after-message',
      description: 'message.started comes before any tool event',
      source: `${REF} 10`,
      scope: 'stream',
    }),
    pairedBy('tool.started', ['tool.completed', 'tool.failed'], 'tool_call_id', {
      name: 'tools-paired',
      description: 'every tool.started has exactly one later tool.completed or tool.failed with its tool_call_id',
      source: `${REF} 11`,
      scope: 'stream',
    }),
    terminal(
      ['run.completed', 'run.cancelled', 'run.failed', 'error'],
      { trailers: ['done'] },
      { name: 'one-terminal', description: 'exactly one terminal event, then only done', source: `${REF} 12`, scope: 'stream' },
    ),
    exactlyOne(['done'], { name: 'done-once', description: 'done is always sent, once', source: `${REF} 12`, scope: 'stream' }),
    never('*', { after: 'done' }, { name: 'done-last', description: 'done is always last', source: `${REF} 12`, scope: 'stream' }),
  ],
};

export const hermesRuns: Pack = {
  name: 'hermes/runs',
  description: 'GET /v1/runs/{id}/events: event names in data; one terminal run.* event, then only the stream-closed comment.',
  turnStarts: [{ method: 'POST', path: /\/v1\/runs$/ }],
  payloads: {},
  rules: [
    terminal(
      ['run.completed', 'run.failed', 'run.cancelled'],
      { trailers: [':comment'] },
      { name: 'one-terminal', description: 'one terminal run event; no data frame after it', source: `${REF} 13, 14, 21`, scope: 'stream' },
    ),
    precedes('approval.request', 'approval.responded', {
      name: 'approval-answered-after-request',
      description: 'approval.responded follows an approval.request',
      source: `${REF} 16`,
      scope: 'stream',
    }),
    precedes('clarify.request', 'clarify.retired', {
      name: 'clarify-retired-after-request',
      description: 'clarify.retired follows its clarify.request',
      source: `${REF} 17`,
      scope: 'stream',
    }),
  ],
};
