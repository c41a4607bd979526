import { EventSchema } from '@ag-ui/core/schemas';
import type { z } from 'zod';
import type { Pack, Rule } from '../../contracts/index.js';
import { atMostOne, firstEvent, never, pairedBy, precedes, streamMeta, terminal } from '../../contracts/index.js';

const m = streamMeta('AG-UI 1.0 (docs.ag-ui.com, concepts/events;');
const sdk = (what: string) => `@ag-ui/client verifyEvents: ${what})`;
const beyond = (what: string) => `${what}; verifyEvents does not check it)`;

/** Every event type `@ag-ui/core` publishes, with its schema as exported (the union's own members, not copies). */
const payloads: Record<string, z.ZodType> = Object.fromEntries(
  (EventSchema.options as readonly z.ZodObject[]).map((option) => [String((option.shape.type as z.ZodLiteral).value), option]),
);

/** A span of one kind (a text message, a tool call) opened by `start`, carrying `content`, closed once by `end`, all by `key`. */
function span(kind: string, start: string, content: string | undefined, end: string, key: string, source: string): Rule[] {
  const rules = [
    pairedBy(start, [end], key, m(`${kind}-closed`, `every ${start} is closed by one ${end} of its ${key}, unless the run fails`, source), {
      abandonedBy: 'RUN_ERROR',
    }),
  ];
  if (content === undefined) return rules;
  return [
    ...rules,
    precedes(start, content, { ...m(`${kind}-content-after-start`, `${content} only in a ${kind} its ${start} opened`, source), by: key }),
    {
      ...never(content, { after: end, until: start }, m(`${kind}-no-content-after-end`, `no ${content} once its ${end} closed it`, source)),
      by: key,
    },
  ];
}

const rules: Rule[] = [
  firstEvent(
    'RUN_STARTED|RUN_ERROR',
    m('run-started-first', 'a run opens with RUN_STARTED (or fails at once with RUN_ERROR)', sdk('first event')),
  ),
  atMostOne(
    'RUN_STARTED',
    m(
      'one-run-per-request',
      'one POST of RunAgentInput is one run: RUN_STARTED once in its stream',
      beyond('HttpAgent runs one run per request; verifyEvents allows a second run after RUN_FINISHED'),
    ),
  ),
  terminal(
    ['RUN_FINISHED', 'RUN_ERROR'],
    { trailers: [] },
    m(
      'one-terminal-last',
      'the stream ends with one RUN_FINISHED or RUN_ERROR, and nothing follows it',
      beyond('RUN_FINISHED, RUN_ERROR; verifyEvents refuses events after them, but not a stream that ends with neither'),
    ),
  ),
  ...span('text-message', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'messageId', sdk('text messages')),
  ...span('tool-call', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'toolCallId', sdk('tool calls')),
  {
    ...precedes(
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      m('tool-result-for-a-call', 'a TOOL_CALL_RESULT answers a call this run made and ended', beyond('TOOL_CALL_RESULT')),
    ),
    by: 'toolCallId',
  },
  ...span('step', 'STEP_STARTED', undefined, 'STEP_FINISHED', 'stepName', sdk('steps')),
  ...span('reasoning', 'REASONING_START', undefined, 'REASONING_END', 'messageId', sdk('reasoning spans')),
  ...span(
    'reasoning-message',
    'REASONING_MESSAGE_START',
    'REASONING_MESSAGE_CONTENT',
    'REASONING_MESSAGE_END',
    'messageId',
    sdk('reasoning messages'),
  ),
  pairedBy(
    'SUBAGENT_STARTED',
    ['SUBAGENT_FINISHED', 'SUBAGENT_ERROR'],
    'subagentRunId',
    m(
      'subagent-closed',
      'every SUBAGENT_STARTED ends with one SUBAGENT_FINISHED or SUBAGENT_ERROR, unless the run fails',
      sdk('subagents'),
    ),
    { abandonedBy: 'RUN_ERROR' },
  ),
  precedes(
    'STATE_SNAPSHOT',
    'STATE_DELTA',
    m('state-delta-after-snapshot', 'a STATE_DELTA patches a state this run sent a STATE_SNAPSHOT of', beyond('STATE_DELTA')),
  ),
  {
    ...precedes(
      'ACTIVITY_SNAPSHOT',
      'ACTIVITY_DELTA',
      m(
        'activity-delta-after-snapshot',
        'an ACTIVITY_DELTA patches an activity message its ACTIVITY_SNAPSHOT made',
        beyond('ACTIVITY_DELTA'),
      ),
    ),
    by: 'messageId',
  },
];

/** What AG-UI's event stream promises a client, checked on every stream of a run (a POST of RunAgentInput). */
export const agUiEvents: Pack = {
  name: 'ag-ui/events',
  description:
    "AG-UI's event stream: one run per request, spans opened before their content and closed once, tool results and state deltas after what they refer to",
  turnStarts: [],
  payloads,
  rules,
};
