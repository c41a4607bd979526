import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen } from '../../net/listen.js';
import { SeededIds } from '../omnigent/ids.js';

export interface HermesSimulatorOptions {
  seed?: number;
  /** The gateway's API key; requests must send `Authorization: Bearer <key>`. */
  apiKey?: string;
  port?: number;
  host?: string;
}

export interface HermesSimulator {
  url: string;
  apiKey: string;
  /** How many times the scripted agent actually ran (an idempotent replay does not run it). */
  readonly agentRuns: number;
  close(): Promise<void>;
}

/** The default key: long enough for the real gateway's start-up guard, and not a placeholder. */
export const SIMULATOR_API_KEY = 'tapedeck-hermes-simulator-key-0001';

class GatewayError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly type = 'invalid_request_error',
  ) {
    super(message);
  }
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
};

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new GatewayError(400, 'invalid_json', 'Invalid JSON in request body');
}

/** The scripted agent's reply: reasoning, an optional tool call, and text in word deltas. */
function script(prompt: string) {
  const tool = /\b(run|tool|ls|echo)\b/i.test(prompt)
    ? { name: 'terminal', command: prompt.replace(/^.*?:\s*/, '').slice(0, 80) }
    : undefined;
  const text = tool ? `Ran ${tool.command}: done.` : `You said: ${prompt}`;
  return { reasoning: `Reading the request (${prompt.length} characters).`, tool, text, words: text.split(/(?<= )/) };
}

function lastUserText(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  const user = [...messages].reverse().find((m) => (m as { role?: unknown }).role === 'user') as { content?: unknown } | undefined;
  return typeof user?.content === 'string' ? user.content : undefined;
}

/**
 * A Hermes gateway simulator on 127.0.0.1 (hermes-gateway-api.md): Bearer
 * auth and its error envelope, /v1/chat/completions and /v1/responses in JSON
 * and SSE, and Responses idempotency (an exact retry replays the stored
 * result without running the agent; a changed body is refused).
 */
export async function startHermesSimulator(options: HermesSimulatorOptions = {}): Promise<HermesSimulator> {
  const ids = new SeededIds(options.seed ?? 1);
  const apiKey = options.apiKey ?? SIMULATOR_API_KEY;
  let agentRuns = 0;
  const stored = new Map<string, { fingerprint: string; response: Record<string, unknown> }>();

  const sse = (res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    return (data: unknown, event?: string) =>
      res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  };

  function chatCompletions(req: Record<string, unknown>, res: ServerResponse): void {
    const prompt = lastUserText(req.messages);
    if (!Array.isArray(req.messages)) throw new GatewayError(400, 'invalid_request', "Missing 'messages' field");
    if (prompt === undefined) throw new GatewayError(400, 'invalid_request', 'No user message found in messages');
    agentRuns++;
    const s = script(prompt);
    const id = `chatcmpl-${ids.hex(29)}`;
    const created = ids.now();
    const model = typeof req.model === 'string' ? req.model : 'hermes-agent';
    const usage = { prompt_tokens: prompt.length, completion_tokens: s.words.length, total_tokens: prompt.length + s.words.length };
    if (req.stream !== true) {
      json(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: s.text }, finish_reason: 'stop' }],
        usage,
      });
      return;
    }
    const send = sse(res);
    const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
      send({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
    chunk({ role: 'assistant' });
    chunk({ reasoning_content: s.reasoning });
    if (s.tool) {
      const toolCallId = `call_${ids.hex(8)}`;
      send({ tool: s.tool.name, emoji: '💻', label: s.tool.command, toolCallId, status: 'running' }, 'hermes.tool.progress');
      send({ tool: s.tool.name, toolCallId, status: 'completed' }, 'hermes.tool.progress');
    }
    for (const w of s.words) chunk({ content: w });
    chunk({}, 'stop', { usage });
    send('[DONE]');
    res.end();
  }

  function responses(req: Record<string, unknown>, headers: IncomingMessage['headers'], res: ServerResponse): void {
    const input = typeof req.input === 'string' ? req.input : lastUserText(req.input);
    if (input === undefined) throw new GatewayError(400, 'invalid_request', "Missing 'input' field");
    const key = headers['idempotency-key'];
    const fingerprint = createHash('sha256').update(JSON.stringify(req)).digest('hex');
    if (typeof key === 'string') {
      const prior = stored.get(key);
      if (prior && prior.fingerprint !== fingerprint)
        throw new GatewayError(409, 'admission_conflict', 'Idempotency-Key was already used with a different request payload');
      if (prior) {
        // An exact retry of a settled admission: the stored result, and nothing runs again.
        json(res, 200, prior.response, { 'idempotency-replayed': 'true' });
        return;
      }
    }
    agentRuns++;
    const s = script(input);
    const rid = `resp_${ids.hex(28)}`;
    const created = ids.now();
    const model = typeof req.model === 'string' ? req.model : 'hermes-agent';
    const msgId = `msg_${ids.hex(24)}`;
    const call = s.tool && { id: `fc_${ids.hex(24)}`, call_id: `call_${ids.hex(8)}`, out: `fco_${ids.hex(24)}` };
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
    if (typeof key === 'string') stored.set(key, { fingerprint, response: final });
    if (req.stream !== true) {
      json(res, 200, final);
      return;
    }
    const send = sse(res);
    let n = 0;
    const emit = (type: string, fields: Record<string, unknown>) => send({ type, sequence_number: n++, ...fields }, type);
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
    emit('response.output_text.done', { ...pos, text: s.text });
    emit('response.output_item.done', { output_index: 0, item: message });
    emit('response.completed', { response: final });
    res.end();
  }

  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0] as string;
      if (req.method === 'GET' && (path === '/health' || path === '/v1/health'))
        return json(res, 200, { status: 'ok', platform: 'hermes-agent', version: 'simulator' });
      if (req.headers.authorization !== `Bearer ${apiKey}`)
        throw new GatewayError(401, 'gateway_auth_failed', 'Invalid gateway API key (API_SERVER_KEY)', 'gateway_auth_error');
      if (req.method === 'POST' && path === '/v1/chat/completions') return chatCompletions(await body(req), res);
      if (req.method === 'POST' && path === '/v1/responses') return responses(await body(req), req.headers, res);
      throw new GatewayError(404, 'not_found', `No route for ${req.method} ${path}`);
    })().catch((err: unknown) => {
      const e = err instanceof GatewayError ? err : new GatewayError(500, 'server_error', (err as Error).message, 'server_error');
      if (res.headersSent) return res.end();
      json(res, e.status, { error: { message: e.message, type: e.type, param: null, code: e.code } });
    });
  });
  const { url } = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    url,
    apiKey,
    get agentRuns() {
      return agentRuns;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
