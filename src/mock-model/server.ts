import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { readJsonObject, sendJson } from '../net/http-json.js';
import { listen } from '../net/listen.js';
import { openSse } from '../net/open-sse.js';
import type { MockReply, MockRule } from './script.js';

/**
 * A scripted model for running real agent servers offline: OpenAI chat
 * completions (opencode's `@ai-sdk/openai-compatible`) and the Responses API
 * (codex's `wire_api = "responses"`), streamed. The script is fixed, so a real
 * server's turns are as repeatable as the server allows:
 *
 * - the last message is a tool result: the closing text `Tool said hello.`;
 * - else the first of `rules` that answers the user's text (each family's
 *   rules answer its own probes' prompts);
 * - anything else: `Hello from mock.` in three deltas.
 */
export interface MockModelOptions {
  port?: number;
  host?: string;
  rules?: readonly MockRule[];
}

export interface MockModel {
  url: string;
  /** The base URL a provider config takes (`<url>/v1`). */
  baseUrl: string;
  /** Every request's method, path and, for the model routes, what the script chose. */
  readonly calls: { method: string; path: string; reply?: 'text' | 'tool' | 'after-tool' }[];
  close(): Promise<void>;
}

export const MOCK_MODEL = 'mock-model';
/** A key the mock model accepts; not a credential of anything. */
export const MOCK_KEY = 'tapedeck-mock-model';
const GREETING = ['Hello ', 'from ', 'mock.'];
const AFTER_TOOL = ['Tool ', 'said ', 'hello.'];
const USAGE = { input: 10, output: 3 };

/** What the script answers, from the last message, the last user text and the tools on offer. */
function choose(rules: readonly MockRule[], lastRole: string | undefined, userText: string, tools: string[]): MockReply {
  if (lastRole === 'tool') return { kind: 'after-tool', words: AFTER_TOOL };
  for (const rule of rules) {
    const reply = rule({ userText, tools });
    if (reply) return reply;
  }
  return { kind: 'text', words: GREETING };
}

/** Sends each word through `send`, pausing `paceMs` before each; stops when the client has gone. */
async function streamWords(res: ServerResponse, words: string[], paceMs: number | undefined, send: (w: string) => void): Promise<void> {
  for (const w of words) {
    if (paceMs) await sleep(paceMs);
    if (res.destroyed) return;
    send(w);
  }
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p) => (typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('')
      : '';

const toolNames = (tools: unknown): string[] =>
  Array.isArray(tools)
    ? tools.map((t) => {
        const x = t as { name?: unknown; function?: { name?: unknown } };
        return String(x.function?.name ?? x.name ?? '');
      })
    : [];

class ModelError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function chatCompletions(
  rules: readonly MockRule[],
  body: Record<string, unknown>,
  res: ServerResponse,
  n: number,
): Promise<MockReply> {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: string; content?: unknown }[]) : undefined;
  if (!messages) throw new ModelError(400, "missing 'messages'");
  const user = [...messages].reverse().find((m) => m.role === 'user');
  const reply = choose(rules, messages.at(-1)?.role, textOf(user?.content), toolNames(body.tools));
  const id = `chatcmpl-mock${n}`;
  const model = String(body.model ?? MOCK_MODEL);
  const usage = { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output };
  const sse = openSse(res);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
    sse.send({
      id,
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...extra,
    });
  chunk({ role: 'assistant', content: '' });
  if (reply.kind === 'tool') {
    chunk({
      tool_calls: [
        { index: 0, id: `call_mock${n}`, type: 'function', function: { name: reply.name, arguments: JSON.stringify(reply.args) } },
      ],
    });
    chunk({}, 'tool_calls');
  } else {
    await streamWords(res, reply.words, reply.paceMs, (w) => chunk({ content: w }));
    chunk({}, 'stop');
  }
  // The usage chunk has no choices, as OpenAI sends it with stream_options.include_usage.
  sse.send({ id, object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage });
  sse.send('[DONE]');
  sse.end();
  return reply;
}

async function responses(rules: readonly MockRule[], body: Record<string, unknown>, res: ServerResponse, n: number): Promise<MockReply> {
  const input = Array.isArray(body.input) ? (body.input as { type?: string; role?: string; content?: unknown }[]) : undefined;
  if (!input) throw new ModelError(400, "missing 'input'");
  const last = input.at(-1);
  const user = [...input].reverse().find((m) => m.role === 'user');
  const reply = choose(rules, last?.type === 'function_call_output' ? 'tool' : last?.role, textOf(user?.content), toolNames(body.tools));
  const rid = `resp_mock${n}`;
  const model = String(body.model ?? MOCK_MODEL);
  const sse = openSse(res);
  let seq = 0;
  const emit = (type: string, fields: Record<string, unknown>) => sse.send({ type, sequence_number: seq++, ...fields }, type);
  const shell = { id: rid, object: 'response', created_at: 1_700_000_000, model };
  emit('response.created', { response: { ...shell, status: 'in_progress', output: [] } });
  let item: Record<string, unknown>;
  if (reply.kind === 'tool') {
    const args = JSON.stringify(reply.args);
    item = { id: `fc_mock${n}`, type: 'function_call', status: 'completed', call_id: `call_mock${n}`, name: reply.name, arguments: args };
    emit('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } });
    emit('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: args });
    emit('response.function_call_arguments.done', { item_id: item.id, output_index: 0, arguments: args });
  } else {
    const text = reply.words.join('');
    item = {
      id: reply.itemId ?? `msg_mock${n}`,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text, annotations: [] }],
    };
    const pos = { item_id: item.id, output_index: 0, content_index: 0 };
    emit('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
    emit('response.content_part.added', { ...pos, part: { type: 'output_text', text: '', annotations: [] } });
    await streamWords(res, reply.words, reply.paceMs, (w) => emit('response.output_text.delta', { ...pos, delta: w }));
    emit('response.output_text.done', { ...pos, text });
    emit('response.content_part.done', { ...pos, part: { type: 'output_text', text, annotations: [] } });
  }
  emit('response.output_item.done', { output_index: 0, item });
  const usage = {
    input_tokens: USAGE.input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: USAGE.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: USAGE.input + USAGE.output,
  };
  emit('response.completed', { response: { ...shell, status: 'completed', output: [item], usage } });
  sse.end();
  return reply;
}

/** Starts the mock model on 127.0.0.1 (any free port unless `port` is given). */
export async function startMockModel(options: MockModelOptions = {}): Promise<MockModel> {
  const calls: MockModel['calls'] = [];
  let n = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://model').pathname;
    const call: MockModel['calls'][number] = { method: req.method ?? 'GET', path };
    calls.push(call);
    const route =
      req.method === 'POST' && /\/chat\/completions$/.test(path)
        ? chatCompletions
        : req.method === 'POST' && /\/responses$/.test(path)
          ? responses
          : undefined;
    if (req.method === 'GET' && /\/models$/.test(path)) {
      sendJson(res, 200, { object: 'list', data: [{ id: MOCK_MODEL, object: 'model', created: 1_700_000_000, owned_by: 'tapedeck' }] });
      return;
    }
    if (!route) {
      sendJson(res, 404, {
        error: { message: `the mock model serves POST /v1/chat/completions and /v1/responses, not ${req.method} ${path}` },
      });
      return;
    }
    readJsonObject(req, () => new ModelError(400, 'the body is not a JSON object'))
      .then(async (body) => {
        const reply = await route(options.rules ?? [], body, res, ++n);
        call.reply = reply.kind;
      })
      .catch((err: unknown) => {
        if (res.headersSent) res.destroy();
        else sendJson(res, err instanceof ModelError ? err.status : 500, { error: { message: (err as Error).message } });
      });
  });
  const { url } = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    url,
    baseUrl: `${url}/v1`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
