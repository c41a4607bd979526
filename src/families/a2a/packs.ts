import type { Pack, Rule } from '../../contracts/index.js';
import { atMostOne, eventually, never, precedes, progression, streamMeta } from '../../contracts/index.js';
import { clientMessages, FINAL_STATES, responseSchema, results } from './schemas.js';

const m = streamMeta('A2A 1.0 (a2a-protocol.org/v1.0.0/specification,');

/** A client request: a client message with both a method and an id. */
const REQUEST = 'client:*[id][method]';
const FINAL = FINAL_STATES.join('|');
/** Methods answered once; the streaming ones (SendStreamingMessage, SubscribeToTask) are answered by every event. */
const UNARY = 'SendMessage|GetTask|CancelTask|ListTasks|GetExtendedAgentCard';
const ARTIFACT = 'result.artifactUpdate.artifact.artifactId';

const rules: Rule[] = [
  {
    ...eventually('response', { after: REQUEST }, m('request-answered', 'every request is answered', 'JSON-RPC 2.0 §5)')),
    by: 'id',
  },
  {
    ...atMostOne(
      `response[request.method=${UNARY}]`,
      m('one-answer-unless-streamed', 'a request of a unary method is answered once', '§9.4)'),
    ),
    by: 'id',
  },
  {
    ...precedes(REQUEST, 'response[id]', m('response-to-a-request', 'a response answers a request the client sent', 'JSON-RPC 2.0 §5)')),
    by: 'id',
  },
  {
    ...never(
      'response',
      { after: `response[result.statusUpdate.status.state=${FINAL}]` },
      m('stream-ends-at-final-status', 'nothing follows, in a stream, the status update that ends or pauses the task', '§3.1.2, §7.2)'),
    ),
    by: 'id',
  },
  {
    ...never(
      'response',
      { after: 'response[result.message]' },
      m('stream-ends-at-message', 'a stream that answers with a message ends with it', '§3.1.2)'),
    ),
    by: 'id',
  },
  progression(
    'response',
    {
      key: 'result.task.id|result.statusUpdate.taskId|result.id',
      field: 'result.task.status.state|result.statusUpdate.status.state|result.status.state',
      stages: [
        ['TASK_STATE_SUBMITTED'],
        ['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'],
        ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'],
      ],
    },
    m(
      'task-states-move-forward',
      'a task goes submitted, working (or paused for input or auth), then completed, failed, canceled or rejected, never back',
      '§6.3 TaskState)',
    ),
  ),
  {
    ...precedes(
      'response[result.artifactUpdate][result.artifactUpdate.append=false|undefined]',
      'response[result.artifactUpdate.append=true]',
      m(
        'append-to-an-artifact-that-exists',
        'a chunk appended to an artifact follows the chunk that made it',
        '§7.3 TaskArtifactUpdateEvent)',
      ),
    ),
    by: ARTIFACT,
  },
  {
    ...never(
      'response[result.artifactUpdate]',
      { after: 'response[result.artifactUpdate.lastChunk=true]' },
      m('no-chunk-after-the-last', 'no chunk of an artifact after the one marked lastChunk', '§7.3 TaskArtifactUpdateEvent)'),
    ),
    by: ARTIFACT,
  },
];

/**
 * A2A over JSON-RPC: every request of a recording carries `A2A-Version`, so the whole exchange is checked as one
 * session of both sides' messages in wire order (streamed answers one by one), whatever POST or SSE stream carried each.
 */
export const a2aJsonRpc: Pack = {
  name: 'a2a/jsonrpc',
  description:
    'A2A over JSON-RPC: every request answered (a unary one once), streams end at the status that ends or pauses the task, task states only forward, artifact chunks appended to one that exists and none after the last.',
  turnStarts: [],
  session: { header: 'a2a-version', issuedBy: 'client' },
  payloads: { ...clientMessages, response: responseSchema },
  results,
  openVocabulary: true,
  rules,
};
