import type { RunAgentInputSchema } from '@ag-ui/core/schemas';
import type { z } from 'zod';
import type { SeededIds } from '../../../net/seeded-ids.js';

/** One AG-UI event as the simulator sends it: its type and the rest of its fields. */
type RunAgentInput = z.infer<typeof RunAgentInputSchema>;

export type SimEvent = Record<string, unknown> & { type: string };

const WEATHER = { city: 'Paris', temp: 21, unit: 'C' };

/** Text as a model streams it: a message opened, a delta per word, closed. */
function say(text: string, id: string): SimEvent[] {
  const words = text.match(/\S+\s*/g) ?? [text];
  return [
    { type: 'TEXT_MESSAGE_START', messageId: id, role: 'assistant' },
    ...words.map((delta) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta })),
    { type: 'TEXT_MESSAGE_END', messageId: id },
  ];
}

/** A tool call streamed in two pieces of its JSON arguments. */
function call(toolCallId: string, toolCallName: string, args: Record<string, unknown>, parentMessageId: string): SimEvent[] {
  const text = JSON.stringify(args);
  const cut = Math.ceil(text.length / 2);
  return [
    { type: 'TOOL_CALL_START', toolCallId, toolCallName, parentMessageId },
    { type: 'TOOL_CALL_ARGS', toolCallId, delta: text.slice(0, cut) },
    { type: 'TOOL_CALL_ARGS', toolCallId, delta: text.slice(cut) },
    { type: 'TOOL_CALL_END', toolCallId },
  ];
}

const textOf = (content: unknown) =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => (p as { text?: string }).text ?? '').join('') : '';

/** The first required string parameter of an offered tool, which its call fills with the user's words. */
function firstParameter(parameters: unknown): string {
  const schema = parameters as { properties?: Record<string, { type?: string }>; required?: string[] } | undefined;
  const names = schema?.required ?? Object.keys(schema?.properties ?? {});
  return names.find((n) => schema?.properties?.[n]?.type === 'string') ?? names[0] ?? 'input';
}

/** What the agent does for the last message: answer a tool result, call the client's tool, its own, keep state, or reply. */
function body(input: RunAgentInput, ids: SeededIds): SimEvent[] {
  const last = input.messages.at(-1);
  const reply = `msg_${ids.hex(12)}`;
  if (!last) return say('Nothing to answer yet.', reply);
  if (last.role === 'tool') return say(`Done: the client answered ${textOf(last.content)}.`, reply);
  const text = textOf(last.content);
  const offered = input.tools[0];
  if (offered) return call(`call_${ids.hex(12)}`, offered.name, { [firstParameter(offered.parameters)]: text }, reply);
  if (/weather/i.test(text)) {
    const id = `call_${ids.hex(12)}`;
    return [
      ...call(id, 'get_weather', { city: WEATHER.city }, reply),
      { type: 'TOOL_CALL_RESULT', messageId: `tool_${ids.hex(12)}`, toolCallId: id, role: 'tool', content: JSON.stringify(WEATHER) },
      ...say(`It is ${WEATHER.temp} °${WEATHER.unit} in ${WEATHER.city}.`, `msg_${ids.hex(12)}`),
    ];
  }
  if (/remember|state/i.test(text)) {
    const state = typeof input.state === 'object' && input.state !== null ? input.state : {};
    return [
      { type: 'STATE_SNAPSHOT', snapshot: { ...state, notes: [] } },
      { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/notes/-', value: text }] },
      ...say('Noted in your state.', reply),
    ];
  }
  if (/what is my name/i.test(text)) {
    const name = input.messages.map((m) => /my name is (\w+)/i.exec(textOf(m.content))?.[1]).find(Boolean);
    return say(name ? `Your name is ${name}.` : 'You have not told me your name.', reply);
  }
  return say('Hello! I am the tapedeck AG-UI simulator.', reply);
}

/** The whole run: started, one step around the agent's work, finished. */
export function scriptFor(input: RunAgentInput, ids: SeededIds): SimEvent[] {
  const run = { threadId: input.threadId, runId: input.runId };
  return [
    { type: 'RUN_STARTED', ...run },
    { type: 'STEP_STARTED', stepName: 'agent' },
    ...body(input, ids),
    { type: 'STEP_FINISHED', stepName: 'agent' },
    { type: 'RUN_FINISHED', ...run },
  ];
}
