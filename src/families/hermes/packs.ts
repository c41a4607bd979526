import type { Pack } from '../../contracts/index.js';
import { exactlyOne, firstEvent, never, pairedBy, precedes, sequence, terminal } from '../../contracts/index.js';
import { hermesRunPayloads, hermesSessionPayloads } from './payloads.js';

const REF = 'hermes-gateway-api.md, Ordering invariants';
const TERMINALS = ['run.completed', 'run.cancelled', 'run.failed'];

export const hermesSessionStream: Pack = {
  name: 'hermes/session-stream',
  description:
    'POST /api/sessions/{id}/chat/stream: run.started, message.started, paired tool events, assistant.completed before one terminal, done last.',
  turnStarts: [{ method: 'POST', path: /\/api\/sessions\/[^/]+\/chat\/stream$/ }],
  routes: [/\/api\/sessions\/[^/]+\/chat\/stream$/],
  payloads: hermesSessionPayloads,
  optional: ['assistant.delta', 'reasoning.delta', 'assistant.commentary'],
  rules: [
    firstEvent('run.started', { name: 'opens-with-run-started', description: 'the stream opens with run.started', source: `${REF} 1` }),
    sequence(
      'seq',
      { start: 1 },
      { name: 'seq-from-one', description: 'seq starts at 1 and strictly increases within one response', source: `${REF} 9` },
    ),
    precedes('run.started', 'message.started', {
      name: 'message-after-run',
      description: 'run.started comes before message.started',
      source: `${REF} 10`,
      scope: 'stream',
    }),
    ...['assistant.delta', 'tool.started', 'approval.request', 'clarify.request'].map((later) =>
      precedes('message.started', later, {
        name: `${later.replace('.', '-')}-after-message`,
        description: `message.started comes before any ${later}`,
        source: `${REF} 10`,
        scope: 'stream',
      }),
    ),
    pairedBy('tool.started', ['tool.completed', 'tool.failed'], 'tool_call_id', {
      name: 'tools-paired',
      description: 'every tool.started has exactly one later tool.completed or tool.failed with its tool_call_id',
      source: `${REF} 11`,
      scope: 'stream',
    }),
    ...TERMINALS.map((t) =>
      precedes('assistant.completed', t, {
        name: `completed-before-${t.replace('.', '-')}`,
        description: `assistant.completed comes before ${t}`,
        source: `${REF} 12`,
        scope: 'stream',
      }),
    ),
    terminal(
      [...TERMINALS, 'error'],
      { trailers: ['done'] },
      {
        name: 'one-terminal',
        description: 'exactly one terminal (or one error instead), then only done',
        source: `${REF} 12, 13, 14`,
        scope: 'stream',
      },
    ),
    exactlyOne(['done'], { name: 'done-once', description: 'done is always sent, once', source: `${REF} 12`, scope: 'stream' }),
    never('*', { after: 'done' }, { name: 'done-last', description: 'done is always last', source: `${REF} 12`, scope: 'stream' }),
  ],
};

export const hermesRuns: Pack = {
  name: 'hermes/runs',
  description:
    'GET /v1/runs/{id}/events: event names in data; prompts answered after they are asked; one terminal run.* event, then only the stream-closed comment.',
  turnStarts: [{ method: 'POST', path: /\/v1\/runs$/ }],
  routes: [/\/v1\/runs\/[^/]+\/events$/],
  payloads: hermesRunPayloads,
  optional: ['message.delta', 'reasoning.available', 'reasoning.delta'],
  rules: [
    terminal(
      TERMINALS,
      { trailers: [':comment'] },
      { name: 'one-terminal', description: 'one terminal run event; no data frame after it', source: `${REF} 13, 14, 21`, scope: 'stream' },
    ),
    // A request may also end with the run (trace 4: cancelled while waiting), so no rule demands an answer.
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
