import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { openSse } from '../../../net/open-sse.js';
import type { SeededIds } from '../../../net/seeded-ids.js';
import { GatewayError, lastUserText, sendJson } from './errors.js';

/** The OpenAI-compatible routes' agent: reasoning, an optional tool call, and text in word deltas (no prompts: these routes have none). */
function script(prompt: string) {
  const tool = /\b(run|tool|ls|echo)\b/i.test(prompt)
    ? { name: 'terminal', command: prompt.replace(/^.*?:\s*/, '').slice(0, 80) }
    : undefined;
  const text = tool ? `Ran ${tool.command}: done.` : `You said: ${prompt}`;
  return { reasoning: `Reading the request (${prompt.length} characters).`, tool, text, words: text.split(/(?<= )/) };
}

/** POST /v1/chat/completions and POST /v1/responses, in JSON and SSE, with Responses idempotency. */
export class OpenAiRoutes {
  private readonly stored = new Map<string, { fingerprint: string; response: Record<string, unknown> }>();

  constructor(
    private readonly ids: SeededIds,
    private readonly ran: () => void,
  ) {}

  chatCompletions(req: Record<string, unknown>, res: ServerResponse): void {
    if (!Array.isArray(req.messages)) throw new GatewayError(400, 'invalid_request', "Missing 'messages' field");
    const prompt = lastUserText(req.messages);
    if (prompt === undefined) throw new GatewayError(400, 'invalid_request', 'No user message found in messages');
    this.ran();
    const s = script(prompt);
    const id = `chatcmpl-${this.ids.hex(29)}`;
    const created = this.ids.now();
    const model = typeof req.model === 'string' ? req.model : 'hermes-agent';
    const usage = { prompt_tokens: prompt.length, completion_tokens: s.words.length, total_tokens: prompt.length + s.words.length };
    if (req.stream !== true) {
      sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: s.text }, finish_reason: 'stop' }],
        usage,
      });
      return;
    }
    const sse = openSse(res);
    const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
      sse.send({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
    chunk({ role: 'assistant' });
    chunk({ reasoning_content: s.reasoning });
    if (s.tool) {
      const toolCallId = `call_${this.ids.hex(8)}`;
      sse.send({ tool: s.tool.name, emoji: '💻', label: s.tool.command, toolCallId, status: 'running' }, 'hermes.tool.progress');
      sse.send({ tool: s.tool.name, toolCallId, status: 'completed' }, 'hermes.tool.progress');
    }
    for (const w of s.words) chunk({ content: w });
    chunk({}, 'stop', { usage });
    sse.send('[DONE]');
    sse.end();
  }

  responses(req: Record<string, unknown>, headers: IncomingMessage['headers'], res: ServerResponse): void {
    const input = lastUserText(req.input);
    if (input === undefined) throw new GatewayError(400, 'invalid_request', "Missing 'input' field");
    const key = headers['idempotency-key'];
    const fingerprint = createHash('sha256').update(JSON.stringify(req)).digest('hex');
    if (typeof key === 'string') {
      const prior = this.stored.get(key);
      if (prior && prior.fingerprint !== fingerprint)
        throw new GatewayError(409, 'admission_conflict', 'Idempotency-Key was already used with a different request payload');
      if (prior) {
        // An exact retry of a settled admission: the stored result, and nothing runs again.
        sendJson(res, 200, prior.response, { 'idempotency-replayed': 'true' });
        return;
      }
    }
    this.ran();
    const s = script(input);
    const rid = `resp_${this.ids.hex(28)}`;
    const created = this.ids.now();
    const model = typeof req.model === 'string' ? req.model : 'hermes-agent';
    const msgId = `msg_${this.ids.hex(24)}`;
    const call = s.tool && { id: `fc_${this.ids.hex(24)}`, call_id: `call_${this.ids.hex(8)}`, out: `fco_${this.ids.hex(24)}` };
    const fc = call &&
      s.tool && {
        id: call.id,
        type: 'function_call',
        name: s.tool.name,
        call_id: call.call_id,
        arguments: JSON.stringify({ command: s.tool.command }),
      };
    const fco = call && {
      id: call.out,
      type: 'function_call_output',
      call_id: call.call_id,
      output: [{ type: 'input_text', text: 'done' }],
      status: 'completed',
    };
    const message = {
      id: msgId,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: s.text }],
    };
    const usage = { input_tokens: input.length, output_tokens: s.words.length, total_tokens: input.length + s.words.length };
    const output = [...(fc ? [{ ...fc, status: 'completed' }, fco] : []), message];
    const final = { id: rid, object: 'response', status: 'completed', created_at: created, model, output, usage };
    if (typeof key === 'string') this.stored.set(key, { fingerprint, response: final });
    if (req.stream !== true) {
      sendJson(res, 200, final);
      return;
    }
    const sse = openSse(res);
    let n = 0;
    const emit = (type: string, fields: Record<string, unknown>) => sse.send({ type, sequence_number: n++, ...fields }, type);
    const pos = { item_id: msgId, output_index: 0, content_index: 0 };
    emit('response.created', { response: { id: rid, object: 'response', status: 'in_progress', created_at: created, model, output: [] } });
    emit('response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress', content: [] } });
    const [first, ...rest] = s.words;
    emit('response.output_text.delta', { ...pos, delta: first ?? '', logprobs: [] });
    if (fc && fco) {
      emit('response.output_item.added', { output_index: 1, item: { ...fc, status: 'in_progress' } });
      emit('response.output_item.done', { output_index: 1, item: { ...fc, status: 'completed' } });
      emit('response.output_item.added', { output_index: 2, item: fco });
      emit('response.output_item.done', { output_index: 2, item: fco });
    }
    for (const w of rest) emit('response.output_text.delta', { ...pos, delta: w, logprobs: [] });
    emit('response.output_text.done', { ...pos, text: s.text, logprobs: [] });
    emit('response.output_item.done', { output_index: 0, item: message });
    emit('response.completed', { response: final });
    sse.end();
  }
}
