import { type FetchLike, ServerResponseError, type StreamEvent, StreamReader } from '../kit/index.js';

/** A message as RunAgentInput carries it (the fields the probes send and read back). */
export type Message = Record<string, unknown> & { id: string; role: string };

/** One run as the client saw it: its events, in order, and whether the stream ended before the wait did. */
export interface Run {
  events: StreamEvent[];
  ended: boolean;
  error: string | undefined;
}

/** A plain AG-UI client: POSTs RunAgentInput to the agent's endpoint and reads the SSE events of the run. */
export class AgUiClient {
  constructor(
    readonly url: string,
    readonly fetch: FetchLike = (url, init) => globalThis.fetch(url, init),
    readonly headers: Record<string, string> = {},
  ) {}

  /** Sends any body (a malformed one, for the refusal probe) and gives back the raw response. */
  post(body: string): Promise<Response> {
    return this.fetch(this.url, {
      method: 'POST',
      headers: { ...this.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
      body,
    });
  }

  /** One run: its stream read to the end, or until `waitMs`; an answer other than 200 is the server's trouble. */
  async run(input: Record<string, unknown>, waitMs: number): Promise<Run> {
    const controller = new AbortController();
    const res = await this.fetch(this.url, {
      method: 'POST',
      headers: { ...this.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(input),
      signal: controller.signal,
    });
    if (res.status !== 200) throw new ServerResponseError(res.status, `POST ${new URL(this.url).pathname}`, await res.text());
    const reader = await StreamReader.follow(res, controller);
    await reader.untilEnd(waitMs);
    const ended = reader.ended;
    if (!ended) reader.close();
    return { events: [...reader.events], ended, error: reader.error };
  }
}

/** The RunAgentInput of a probe's `n`th run: ids named for the probe, so a re-recording of the same server gives the same requests. */
export function runInput(
  probe: string,
  n: number,
  fields: { messages: Message[]; tools?: unknown[]; state?: unknown; forwardedProps?: Record<string, unknown> },
): Record<string, unknown> {
  return {
    threadId: `thread-${probe}`,
    runId: `run-${probe}-${n}`,
    state: fields.state ?? {},
    messages: fields.messages,
    tools: fields.tools ?? [],
    context: [],
    forwardedProps: fields.forwardedProps ?? {},
  };
}

/** A user message of a probe's run. */
export const userMessage = (probe: string, n: number, content: string): Message => ({
  id: `msg-${probe}-user-${n}`,
  role: 'user',
  content,
});

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * The messages a run added, as a client keeps them to send back next run: assistant text, tool calls (under the
 * assistant message they name as parent) and tool results.
 */
export function messagesOf(events: readonly StreamEvent[]): Message[] {
  const out: Message[] = [];
  const byId = new Map<string, Message>();
  const assistant = (id: string) => {
    let message = byId.get(id);
    if (!message) {
      message = { id, role: 'assistant' };
      byId.set(id, message);
      out.push(message);
    }
    return message;
  };
  const calls = new Map<string, { id: string; type: 'function'; function: { name: string; arguments: string } }>();
  for (const { type, data } of events) {
    if (type === 'TEXT_MESSAGE_START') assistant(str(data.messageId));
    else if (type === 'TEXT_MESSAGE_CONTENT') {
      const message = assistant(str(data.messageId));
      message.content = str(message.content) + str(data.delta);
    } else if (type === 'TOOL_CALL_START') {
      const call = { id: str(data.toolCallId), type: 'function' as const, function: { name: str(data.toolCallName), arguments: '' } };
      calls.set(call.id, call);
      const parent = assistant(str(data.parentMessageId) || call.id);
      parent.toolCalls = [...((parent.toolCalls as unknown[]) ?? []), call];
    } else if (type === 'TOOL_CALL_ARGS') {
      const call = calls.get(str(data.toolCallId));
      if (call) call.function.arguments += str(data.delta);
    } else if (type === 'TOOL_CALL_RESULT')
      out.push({ id: str(data.messageId), role: 'tool', content: str(data.content), toolCallId: str(data.toolCallId) });
  }
  return out;
}

/** The events of these types, in order. */
export const ofType = (events: readonly StreamEvent[], ...types: string[]) => events.filter((e) => types.includes(e.type));

/** The assistant's reply text over the run. */
export const replyText = (events: readonly StreamEvent[]) =>
  ofType(events, 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CHUNK')
    .map((e) => str(e.data.delta))
    .join('');
