import { afterEach, describe, expect, it } from 'vitest';
import type { MockModel } from '../../src/mock-model/index.js';
import { startFamilyMockModel as startMockModel } from '../../src/probing/index.js';

let model: MockModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** Posts a streamed request and returns the `data:` payloads (JSON-parsed, `[DONE]` kept as is). */
async function stream(path: string, body: unknown): Promise<unknown[]> {
  const res = await fetch(`${model?.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  return (await res.text())
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => l.slice(6))
    .map((d) => (d === '[DONE]' ? d : JSON.parse(d)));
}

const BASH = [{ type: 'function', function: { name: 'bash', parameters: {} } }];

describe('the mock model', () => {
  it('chat completions: a greeting in deltas, usage, then [DONE]', async () => {
    model = await startMockModel();
    const chunks = (await stream('/chat/completions', {
      model: 'mock-model',
      stream: true,
      messages: [{ role: 'user', content: 'Say hi.' }],
    })) as {
      choices?: { delta: { content?: string }; finish_reason: string | null }[];
      usage?: unknown;
    }[];
    expect(chunks.at(-1)).toBe('[DONE]');
    const text = chunks
      .flatMap((c) => c.choices ?? [])
      .map((c) => c.delta.content ?? '')
      .join('');
    expect(text).toBe('Hello from mock.');
    expect(chunks.flatMap((c) => c.choices ?? []).at(-1)?.finish_reason).toBe('stop');
    expect(chunks.at(-2)).toMatchObject({ choices: [], usage: { total_tokens: 13 } });
  });

  it('chat completions: one bash call when asked to run something and bash is offered; the closing text after its result', async () => {
    model = await startMockModel();
    const asked = [{ role: 'user', content: [{ type: 'text', text: 'Please run: echo hi' }] }];
    const call = JSON.stringify(await stream('/chat/completions', { stream: true, messages: asked, tools: BASH }));
    expect(call).toContain('"name":"bash"');
    expect(call).toContain('"finish_reason":"tool_calls"');
    // Without the tool on offer (a title request, say) the same words get text.
    expect(JSON.stringify(await stream('/chat/completions', { stream: true, messages: asked }))).not.toContain('tool_calls');
    const after = await stream('/chat/completions', {
      stream: true,
      tools: BASH,
      messages: [...asked, { role: 'assistant', content: '' }, { role: 'tool', content: 'hello-from-tool' }],
    });
    expect(JSON.stringify(after)).toContain('said ');
    expect(model.calls.map((c) => c.reply)).toEqual(['tool', 'text', 'after-tool']);
  });

  it('Responses: exec_command {cmd} when asked to run, text after the function_call_output, in the official event order', async () => {
    model = await startMockModel();
    const tools = [{ type: 'function', name: 'exec_command' }];
    const input = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Please run: echo hello-from-tool' }] }];
    const call = (await stream('/responses', { stream: true, input, tools })) as {
      type: string;
      item?: { name?: string; arguments?: string };
    }[];
    expect(call.map((e) => e.type)).toEqual([
      'response.created',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(JSON.parse(call[4]?.item?.arguments ?? '{}')).toEqual({ cmd: 'echo hello-from-tool' });
    const after = (await stream('/responses', {
      stream: true,
      tools,
      input: [...input, { type: 'function_call', call_id: 'c' }, { type: 'function_call_output', call_id: 'c', output: 'hello-from-tool' }],
    })) as { type: string; delta?: string }[];
    expect(
      after
        .filter((e) => e.type === 'response.output_text.delta')
        .map((e) => e.delta)
        .join(''),
    ).toBe('Tool said hello.');
    expect(after.map((e) => e.type).at(-1)).toBe('response.completed');
  });

  it('answers anything else with a 404 naming the routes it serves, and a bad body with 400', async () => {
    model = await startMockModel();
    const res = await fetch(`${model.url}/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('/v1/chat/completions');
    const bad = await fetch(`${model.baseUrl}/responses`, { method: 'POST', body: '[1]' });
    expect(bad.status).toBe(400);
  });

  it("answers the omnigent bench's prompts as a model that follows them: the literal, twenty counted deltas, a long paced essay", async () => {
    model = await startMockModel();
    const deltas = async (text: string) =>
      (await stream('/responses', { model: 'm', stream: true, input: [{ role: 'user', content: [{ type: 'input_text', text }] }] }))
        .filter((e) => (e as { type?: string }).type === 'response.output_text.delta')
        .map((e) => (e as { delta: string }).delta);
    expect(await deltas('Reply with exactly the literal string KIRO_NATIVE_OK and nothing else.')).toEqual(['KIRO_NATIVE_OK']);
    const counted = await deltas('Count from 1 to 20 in words, one per line.');
    expect([counted.length, counted[0], counted.at(-1)]).toEqual([20, 'one\n', 'twenty']);
    const started = performance.now();
    const essay = await deltas('Write a detailed 500-word essay about the history of computing.');
    // Paced so an interrupt lands mid-stream: 200 deltas, 25 ms apart, take seconds, not the milliseconds of the others.
    expect(essay.length).toBe(200);
    expect(performance.now() - started).toBeGreaterThan(200 * 25 * 0.8);
  });
});
