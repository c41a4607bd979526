import type { Pack, Rule } from '../contracts/index.js';
import { assembles, atMostOne, never, pairedBy, precedes, streamMeta, terminal } from '../contracts/index.js';
import { anthropicPayloads } from './anthropic-payloads.js';

const m = streamMeta('Anthropic Messages API, streaming (docs.anthropic.com/en/api/messages-streaming;');
const sdk = (what: string) => `@anthropic-ai/sdk MessageStream: ${what})`;
const BLOCK_EVENTS = 'content_block_start|content_block_delta|content_block_stop';
const TOOL_BLOCK = 'content_block_start[content_block.type=tool_use|server_tool_use]';
const JSON_DELTA = 'content_block_delta[delta.type=input_json_delta]';

/** Each delta type streams into a block of the type it extends, opened at the same index. */
const deltaFits = (block: string, deltas: string, kind: string): Rule => ({
  ...precedes(
    block,
    `content_block_delta[delta.type=${deltas}]`,
    m(`${kind}-delta-in-${kind}-block`, `a ${deltas.replaceAll('|', ' or ')} extends a ${kind} block opened at its index`, sdk('deltas')),
  ),
  by: 'index',
});

const rules: Rule[] = [
  precedes(
    'message_start',
    `${BLOCK_EVENTS}|message_delta|message_stop`,
    m(
      'message-start-first',
      'message_start opens the stream: only ping or error may come before it',
      'event flow; SDK: no message_start fails)',
    ),
  ),
  atMostOne('message_start', m('one-message', 'one message per stream: message_start once', sdk('a second message_start is refused'))),
  terminal(
    ['message_stop', 'error'],
    { trailers: ['ping'] },
    m('one-terminal-last', 'the stream ends with one message_stop, or an error, and only pings follow it', 'event flow, error events)'),
  ),
  {
    ...precedes(
      'content_block_start',
      'content_block_delta',
      m(
        'delta-in-open-block',
        'a content_block_delta extends a block its content_block_start opened',
        sdk('a delta before any block fails'),
      ),
    ),
    by: 'index',
  },
  pairedBy(
    'content_block_start',
    ['content_block_stop'],
    'index',
    m(
      'block-stopped',
      'every content_block_start is closed by one content_block_stop of its index, unless an error ends the stream',
      'event flow)',
    ),
    { abandonedBy: 'error' },
  ),
  {
    ...atMostOne(
      'content_block_start',
      m('one-block-per-index', 'one content block per index: its index is its place in the message content', 'event flow)'),
    ),
    by: 'index',
  },
  {
    ...never(
      'content_block_delta',
      { after: 'content_block_stop' },
      m('no-delta-after-stop', 'no content_block_delta once its block stopped', 'event flow)'),
    ),
    by: 'index',
  },
  never(
    'content_block_start',
    { after: 'content_block_start', until: 'content_block_stop' },
    m(
      'one-block-at-a-time',
      'blocks stream one after another: a block starts only once the previous one stopped',
      sdk('deltas are shown for the last block opened'),
    ),
  ),
  deltaFits('content_block_start[content_block.type=text]', 'text_delta|citations_delta', 'text'),
  deltaFits(TOOL_BLOCK, 'input_json_delta', 'tool'),
  deltaFits('content_block_start[content_block.type=thinking]', 'thinking_delta|signature_delta', 'thinking'),
  assembles(
    { event: JSON_DELTA, key: 'index', field: 'delta.partial_json' },
    { event: 'content_block_stop', key: 'index', parses: 'json' },
    m(
      'tool-input-is-json',
      "a tool block's partial_json pieces, joined, are one JSON document when it stops",
      sdk('the input is parsed at content_block_stop'),
    ),
  ),
  never(
    BLOCK_EVENTS,
    { after: 'message_delta' },
    m('blocks-before-message-delta', 'content blocks are done before the message_delta', 'event flow)'),
  ),
  precedes(
    'message_delta',
    'message_stop',
    m('message-delta-before-stop', 'message_stop follows a message_delta (the stop reason and usage)', 'event flow)'),
  ),
];

/** What Anthropic's Messages stream promises a client, checked on every stream of a POST to `/v1/messages`. */
export const anthropicMessages: Pack = {
  name: 'anthropic/messages',
  description:
    "Anthropic's Messages stream: one message_start first, content blocks opened, streamed and stopped by index one at a time, a message_delta, then message_stop; pings anywhere, an error ends it",
  turnStarts: [],
  routes: [/\/messages$/],
  payloads: anthropicPayloads,
  // The API adds event types under its versioning policy; a client must pass over ones it does not know.
  openVocabulary: true,
  optional: ['ping'],
  rules,
};
