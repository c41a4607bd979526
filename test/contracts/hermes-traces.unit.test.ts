import { describe, expect, it } from 'vitest';
import '../../src/families/index.js';
import '../../src/vitest/index.js';

// The reference's sample traces (hermes-gateway-api.md, Sample traces), with full payloads.
const RUN = 'run_0123456789abcdef0123456789abcdef';
const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
  data: {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'hermes-agent',
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  },
});
const chatTrace = [
  chunk({ role: 'assistant' }),
  chunk({ reasoning_content: 'Need 2+2.' }),
  { event: 'hermes.tool.progress', data: { tool: 'terminal', emoji: '💻', label: 'echo 4', toolCallId: 'call_a', status: 'running' } },
  { event: 'hermes.tool.progress', data: { tool: 'terminal', toolCallId: 'call_a', status: 'completed' } },
  chunk({ content: '4' }),
  chunk({}, 'stop', { usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } }),
  { data: '[DONE]' },
];

let n = 0;
const r = (type: string, fields: Record<string, unknown>) => ({ event: type, data: { type, sequence_number: n++, ...fields } });
const msg = (status: string) => ({ id: 'msg_1', type: 'message', status, role: 'assistant', content: [] });
const fc = (status: string) => ({
  id: 'fc_1',
  type: 'function_call',
  status,
  name: 'terminal',
  call_id: 'call_a',
  arguments: '{"command":"ls"}',
});
const fco = {
  id: 'fco_1',
  type: 'function_call_output',
  call_id: 'call_a',
  output: [{ type: 'input_text', text: 'a.txt' }],
  status: 'completed',
};
function responsesTrace(): { event: string; data: Record<string, unknown> }[] {
  n = 0;
  const pos = { item_id: 'msg_1', output_index: 0, content_index: 0 };
  return [
    r('response.created', { response: { id: 'resp_1', status: 'in_progress', output: [] } }),
    r('response.output_item.added', { output_index: 0, item: msg('in_progress') }),
    r('response.output_text.delta', { ...pos, delta: 'Checking' }),
    r('response.output_item.added', { output_index: 1, item: fc('in_progress') }),
    r('response.output_item.done', { output_index: 1, item: fc('completed') }),
    r('response.output_item.added', { output_index: 2, item: fco }),
    r('response.output_item.done', { output_index: 2, item: fco }),
    r('response.output_text.delta', { ...pos, delta: ' — one file.' }),
    r('response.output_text.done', { ...pos, text: 'Checking — one file.' }),
    r('response.output_item.done', { output_index: 0, item: msg('completed') }),
    r('response.completed', { response: { id: 'resp_1', status: 'completed', output: [] } }),
  ];
}

const stamp = (seq: number) => ({ session_id: 's1', run_id: RUN, seq, ts: 1.5 });
const tool = { message_id: 'msg_7', tool_name: 'terminal', tool_call_id: 'call_b', args: {} };
const sessionTrace = [
  { event: 'run.started', data: { user_message: { role: 'user', content: 'cat x' }, runtime: {}, ...stamp(1) } },
  { event: 'message.started', data: { message: { id: 'msg_7', role: 'assistant' }, ...stamp(2) } },
  { event: 'tool.started', data: { ...tool, preview: 'cat x', ...stamp(3) } },
  { event: 'tool.failed', data: { ...tool, preview: 'No such file', ...stamp(4) } },
  { event: 'assistant.delta', data: { message_id: 'msg_7', delta: 'x does not exist.', ...stamp(5) } },
  { event: 'assistant.completed', data: { message_id: 'msg_7', content: 'x does not exist.', runtime: {}, ...stamp(6) } },
  { event: 'run.completed', data: { message_id: 'msg_7', messages: [], usage: {}, ...stamp(7) } },
  { event: 'done', data: stamp(8) },
];

const ev = (event: string, fields: Record<string, unknown> = {}) => ({ data: { event, run_id: 'run_5', timestamp: 1.25, ...fields } });
const runsTrace = [
  ev('tool.started', { tool: 'terminal', preview: 'rm -rf build' }),
  ev('approval.request', { command: 'rm -rf build', choices: ['once', 'session', 'always', 'deny'] }),
  ev('run.cancelled'),
];

describe('the hermes and openai packs on the reference traces', () => {
  it('accept each sample trace under its pack', () => {
    expect(chatTrace).toSatisfyContract('openai/chat-completions');
    expect(responsesTrace()).toSatisfyContract('hermes/responses');
    expect(sessionTrace).toSatisfyContract('hermes/session-stream');
    expect(runsTrace).toSatisfyContract('hermes/runs');
  });

  it('tell the Hermes Responses profile from the official stream', () => {
    // No in_progress and no content parts: legal for Hermes, not for OpenAI.
    expect(responsesTrace()).not.toSatisfyContract('openai/responses');
    const official = responsesTrace();
    official.splice(1, 0, {
      event: 'response.in_progress',
      data: { type: 'response.in_progress', sequence_number: 1, response: { id: 'resp_1', status: 'in_progress' } },
    });
    expect(official).not.toSatisfyContract('hermes/responses');
  });

  it('catch a gap in sequence_number, a seq that goes back, and a preview over 120 characters', () => {
    const gap = responsesTrace();
    gap.splice(3, 1);
    expect(gap).not.toSatisfyContract('hermes/responses');
    const back = sessionTrace.map((e, i) => (i === 4 ? { ...e, data: { ...e.data, seq: 2 } } : e));
    expect(back).not.toSatisfyContract('hermes/session-stream');
    const long = sessionTrace.map((e) => (e.event === 'tool.started' ? { ...e, data: { ...e.data, preview: 'x'.repeat(121) } } : e));
    expect(long).not.toSatisfyContract('hermes/session-stream');
  });
});
