import type { Pack } from '../pack.js';
import { exactlyOne, firstEvent, never, pairedBy, precedes, terminal } from '../rules.js';

const REF = 'hermes-gateway-api.md, Ordering invariants (OpenAI-compatible routes)';

export const openaiResponses: Pack = {
  name: 'openai/responses',
  description: 'Responses API streams: response.created first, paired output items, deltas inside an open message, one terminal last.',
  turnStarts: [{ method: 'POST', path: /\/v1\/responses$/ }],
  payloads: {},
  rules: [
    firstEvent('response.created', { name: 'created-first', description: 'response.created comes first', source: `${REF} 4` }),
    terminal(
      ['response.completed', 'response.failed'],
      { trailers: [] },
      {
        name: 'one-terminal-last',
        description: 'exactly one of response.completed or response.failed, and it is last',
        source: `${REF} 4`,
        scope: 'stream',
      },
    ),
    pairedBy('response.output_item.added', ['response.output_item.done'], 'item.id', {
      name: 'items-paired',
      description: 'every output_item.done pairs with an earlier output_item.added of the same item',
      source: `${REF} 5`,
      scope: 'stream',
    }),
    precedes('response.output_item.added', 'response.output_text.delta', {
      name: 'delta-in-open-message',
      description: 'text deltas come after the message item was added',
      source: `${REF} 7`,
      scope: 'stream',
    }),
  ],
};

export const openaiChatCompletions: Pack = {
  name: 'openai/chat-completions',
  description: 'Chat completions streams: unnamed chunks, one finish chunk, [DONE] last.',
  turnStarts: [{ method: 'POST', path: /\/v1\/chat\/completions$/ }],
  payloads: {},
  rules: [
    exactlyOne(['[DONE]'], {
      name: 'done-once',
      description: 'the stream ends with data: [DONE], once',
      source: `${REF} 2`,
      scope: 'stream',
    }),
    never('*', { after: '[DONE]' }, { name: 'done-last', description: 'nothing follows [DONE]', source: `${REF} 2`, scope: 'stream' }),
    precedes('message[choices.0.delta.role=assistant]', 'message[choices.0.finish_reason=stop]', {
      name: 'role-chunk-first',
      description: 'the role chunk comes before the finish chunk',
      source: `${REF} 1, 2`,
      scope: 'stream',
    }),
  ],
};
