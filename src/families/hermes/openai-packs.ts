import type { Pack } from '../../contracts/index.js';
import { exactlyOne, firstEvent, never, pairedBy, precedes, sequence, terminal } from '../../contracts/index.js';
import { chatChunkPayloads, responsesPayloads } from './payloads.js';

const REF = 'hermes-gateway-api.md, Ordering invariants';
const OFFICIAL = 'hermes-gateway-api.md, OpenAI Responses vocabulary (official lifecycle)';
const PROFILE = 'hermes-gateway-api.md, OpenAI Responses vocabulary (where Hermes differs)';
const responsesStart = [{ method: 'POST', path: /\/v1\/responses$/ }];
const responsesRoutes = [/\/v1\/responses$/];
const MESSAGE_DONE = 'response.output_item.done[item.type=message]';

/** Rules both the official Responses stream and the Hermes profile keep. */
const sharedResponseRules = [
  firstEvent('response.created', { name: 'created-first', description: 'response.created comes first', source: `${REF} 4` }),
  sequence(
    'sequence_number',
    { start: 0, step: 1 },
    { name: 'sequence-from-zero', description: 'sequence_number starts at 0 and grows by 1 per event', source: `${REF} 4` },
  ),
  pairedBy('response.output_item.added', ['response.output_item.done'], 'item.id', {
    name: 'items-paired',
    description: 'every output_item.done pairs with an earlier output_item.added of the same item',
    source: `${REF} 5`,
    scope: 'stream',
  }),
  never(
    '[DONE]',
    { after: 'response.created' },
    { name: 'no-done-sentinel', description: 'Responses streams end without a [DONE] sentinel', source: `${OFFICIAL}; ${REF} B` },
  ),
  precedes('response.output_text.done', MESSAGE_DONE, {
    name: 'text-done-before-message-done',
    description: 'output_text.done comes before the message item is done',
    source: `${REF} 6`,
    scope: 'stream',
  }),
];

/** The official OpenAI Responses stream. */
export const openaiResponses: Pack = {
  name: 'openai/responses',
  description: 'Official Responses streams: created, in_progress, items with content parts and deltas, one terminal last, no [DONE].',
  turnStarts: responsesStart,
  routes: responsesRoutes,
  payloads: responsesPayloads,
  rules: [
    ...sharedResponseRules,
    exactlyOne(['response.in_progress'], {
      name: 'one-in-progress',
      description: 'response.in_progress is sent once',
      source: OFFICIAL,
      scope: 'stream',
    }),
    precedes('response.in_progress', 'response.output_item.added', {
      name: 'items-after-in-progress',
      description: 'output items open after response.in_progress',
      source: OFFICIAL,
      scope: 'stream',
    }),
    terminal(
      ['response.completed', 'response.incomplete', 'response.failed'],
      { trailers: [] },
      { name: 'one-terminal-last', description: 'exactly one terminal event, and it is last', source: OFFICIAL, scope: 'stream' },
    ),
    precedes('response.content_part.added', 'response.output_text.delta', {
      name: 'delta-in-open-part',
      description: 'text deltas come after their content part was added',
      source: OFFICIAL,
      scope: 'stream',
    }),
    precedes('response.output_text.done', 'response.content_part.done', {
      name: 'part-done-after-text-done',
      description: 'a content part is done after its text is done',
      source: OFFICIAL,
      scope: 'stream',
    }),
    precedes('response.output_item.added', 'response.function_call_arguments.delta', {
      name: 'arguments-in-open-call',
      description: 'function call arguments stream inside an added function_call item',
      source: OFFICIAL,
      scope: 'stream',
    }),
  ],
};

/**
 * The Hermes gateway's Responses stream, as a profile of the official one: no
 * in_progress, no content parts, no argument deltas, tool outputs streamed as
 * items, the message kept open across tool items, never incomplete.
 */
export const hermesResponses: Pack = {
  name: 'hermes/responses',
  profile: true,
  description:
    'Hermes profile of openai/responses: no in_progress, content parts or argument deltas; function_call_output items; message open across tools.',
  turnStarts: responsesStart,
  routes: responsesRoutes,
  payloads: responsesPayloads,
  rules: [
    ...sharedResponseRules,
    ...['response.in_progress', 'response.content_part.added', 'response.function_call_arguments.delta', 'response.incomplete'].map(
      (event) =>
        never(
          event,
          { after: 'response.created' },
          {
            name: `no-${event.slice('response.'.length).replaceAll(/[._]/g, '-')}`,
            description: `Hermes never sends ${event}`,
            source: PROFILE,
            scope: 'stream',
          },
        ),
    ),
    terminal(
      ['response.completed', 'response.failed'],
      { trailers: [] },
      { name: 'one-terminal-last', description: 'exactly one of completed or failed, and it is last', source: `${REF} 4`, scope: 'stream' },
    ),
    precedes('response.output_item.added[item.type=message]', 'response.output_text.delta', {
      name: 'delta-in-open-message',
      description: 'text deltas come after the message item was added',
      source: `${REF} 7`,
      scope: 'stream',
    }),
    precedes('response.output_item.done[item.type=function_call]', 'response.output_item.added[item.type=function_call_output]', {
      name: 'output-after-call-done',
      description: "a function_call's done comes before its function_call_output is added",
      source: `${REF} 5`,
      scope: 'stream',
    }),
  ],
};

/** Chat completions streams (official, with Hermes's extensions allowed). */
export const openaiChatCompletions: Pack = {
  name: 'openai/chat-completions',
  description: 'Chat completions streams: role chunk first, one finish chunk, paired tool progress, [DONE] last.',
  turnStarts: [{ method: 'POST', path: /\/v1\/chat\/completions$/ }],
  routes: [/\/v1\/chat\/completions$/],
  payloads: chatChunkPayloads,
  rules: [
    firstEvent('chat.completion.chunk[choices.0.delta.role=assistant]', {
      name: 'role-chunk-first',
      description: 'the first chunk carries delta.role assistant',
      source: `${REF} 1, 2`,
    }),
    exactlyOne(
      ['stop', 'length', 'error', 'tool_calls', 'content_filter'].map((r) => `chat.completion.chunk[choices.0.finish_reason=${r}]`),
      { name: 'one-finish-chunk', description: 'exactly one chunk carries a finish_reason', source: `${REF} 2`, scope: 'stream' },
    ),
    exactlyOne(['[DONE]'], {
      name: 'done-once',
      description: 'the stream ends with data: [DONE], once',
      source: `${REF} 2`,
      scope: 'stream',
    }),
    never('*', { after: '[DONE]' }, { name: 'done-last', description: 'nothing follows [DONE]', source: `${REF} 2`, scope: 'stream' }),
    pairedBy('hermes.tool.progress[status=running]', ['hermes.tool.progress[status=completed]'], 'toolCallId', {
      name: 'tool-progress-paired',
      description: 'a completed tool progress frame follows exactly one running frame of the same toolCallId',
      source: `${REF} 3`,
      scope: 'stream',
    }),
  ],
};
