import type { ServerResponse } from 'node:http';
import { constants, createGzip } from 'node:zlib';
import { readBody, sleep, startServer, type TestServer } from '../helpers/servers.js';

/**
 * A server that speaks Anthropic's Messages API as the docs show it (named SSE events whose data repeats the
 * type, pings between them, gzip when the client accepts it), scripted by the last user message: the test's
 * stand-in for the API, which is not reachable from here. Each scenario is a shape the real API streams.
 */
type Event = Record<string, unknown> & { type: string };

const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output });
const start = (id: string): Event => ({
  type: 'message_start',
  message: {
    id,
    type: 'message',
    role: 'assistant',
    content: [],
    model: 'claude-test-1',
    stop_reason: null,
    stop_sequence: null,
    usage: usage(12, 1),
  },
});
const block = (index: number, content_block: Record<string, unknown>): Event => ({ type: 'content_block_start', index, content_block });
const delta = (index: number, d: Record<string, unknown>): Event => ({ type: 'content_block_delta', index, delta: d });
const stop = (index: number): Event => ({ type: 'content_block_stop', index });
const text = (index: number, pieces: string[]): Event[] => [
  block(index, { type: 'text', text: '' }),
  ...pieces.map((t) => delta(index, { type: 'text_delta', text: t })),
  stop(index),
];
const end = (reason: string, output: number): Event[] => [
  { type: 'message_delta', delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: output } },
  { type: 'message_stop' },
];
const PING: Event = { type: 'ping' };

/** The scripted streams, by a word of the last user message. */
export const SCENARIOS: Record<string, Event[]> = {
  hello: [start('msg_hello'), PING, ...text(0, ['Hello', ' there', ', how can', ' I help?']), ...end('end_turn', 9)],
  weather: [
    start('msg_weather'),
    ...text(0, ['Let me check', ' the weather.']),
    PING,
    block(1, { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: {} }),
    ...['', '{"city": ', '"Par', 'is", "unit"', ': "c"}'].map((p) => delta(1, { type: 'input_json_delta', partial_json: p })),
    stop(1),
    ...end('tool_use', 31),
  ],
  think: [
    start('msg_think'),
    block(0, { type: 'thinking', thinking: '', signature: '' }),
    ...['Two plus', ' two', ' is four.'].map((t) => delta(0, { type: 'thinking_delta', thinking: t })),
    delta(0, { type: 'signature_delta', signature: 'c2lnbmF0dXJl' }),
    stop(0),
    PING,
    ...text(1, ['It is', ' 4.']),
    ...end('end_turn', 20),
  ],
  overload: [
    start('msg_overload'),
    PING,
    block(0, { type: 'text', text: '' }),
    delta(0, { type: 'text_delta', text: 'Partial' }),
    { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
  ],
};

function scenarioOf(body: Buffer): Event[] {
  const request = JSON.parse(body.toString('utf8')) as { messages?: { content?: unknown }[] };
  const last = JSON.stringify(request.messages?.at(-1)?.content ?? '');
  const word = Object.keys(SCENARIOS).find((w) => last.includes(w)) ?? 'hello';
  return SCENARIOS[word] as Event[];
}

async function stream(res: ServerResponse, events: Event[], gzip: boolean): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
  const out = gzip ? createGzip() : undefined;
  out?.pipe(res);
  for (const e of events) {
    const frame = `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
    if (out) {
      out.write(frame);
      // Each event reaches the client as it is sent, as a streaming API's do.
      out.flush(constants.Z_SYNC_FLUSH);
    } else res.write(frame);
    await sleep(2);
  }
  if (out) out.end();
  else res.end();
}

/** Starts the scripted Messages API on a free loopback port: `POST /v1/messages` with `stream: true`. */
export function startAnthropicServer(): Promise<TestServer> {
  return startServer(async (req, res) => {
    if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/messages') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    const events = scenarioOf(await readBody(req));
    await stream(res, events, /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')));
  });
}
