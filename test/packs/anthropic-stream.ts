import Anthropic from '@anthropic-ai/sdk';
import type { Cassette, Interaction, SseItem } from '../../src/cassette/index.js';
import { verifyCassette } from '../../src/contracts/index.js';
import { anthropicMessages } from '../../src/packs/anthropic-messages.js';

/** The streamed POSTs of a recording: each a Messages stream. */
export const streamsOf = (c: Cassette): Interaction[] => c.interactions.filter((i) => i.response?.stream);

export const itemsOf = (i: Interaction): SseItem[] => (i.response?.stream?.events ?? []) as SseItem[];

/** The type of a recorded item: its event name (the Messages API names every event). */
export const typeOf = (item: SseItem): string => item.event ?? 'message';

/** The data of a recorded item, parsed. */
export const dataOf = (item: SseItem): Record<string, unknown> => JSON.parse(item.data ?? '{}') as Record<string, unknown>;

/** An item with its data changed, as the server would have framed it. */
export const withData = (item: SseItem, data: Record<string, unknown>): SseItem => {
  const { raw: _raw, ...rest } = item;
  return { ...rest, data: JSON.stringify(data) };
};

/** The pack's broken rules on one stream of a recording holding `items` instead (all the server sent), with the first message of each. */
export function packRefuses(cassette: Cassette, seq: number, items: SseItem[]): { rule: string; message: string }[] {
  const copy = structuredClone(cassette);
  const run = copy.interactions.find((i) => i.seq === seq);
  const stream = run?.response?.stream;
  if (!run || !stream) throw new Error(`no stream at interaction ${seq}`);
  stream.events = items;
  // Judged as the SDK is given it: the whole stream, ended by the server (a recording whose client closed first would
  // leave a missing terminal unobserved).
  stream.end = 'server-closed';
  copy.interactions = [run];
  return verifyCassette(copy, 'edited.yaml', [anthropicMessages]).rules.flatMap((r) =>
    r.violations.length > 0 ? [{ rule: r.rule, message: r.violations[0]?.message ?? '' }] : [],
  );
}

const wire = (items: readonly SseItem[]) =>
  items.map((i) => i.raw ?? `${i.event === undefined ? '' : `event: ${i.event}\n`}data: ${i.data ?? ''}\n\n`).join('');

/**
 * What the official SDK's MessageStream says of a stream: the error it fails with, or undefined when it builds the
 * final message. The stream's own `error` event, which the SDK raises as the APIError the docs prescribe, is the
 * server's report, not a refusal; any other failure is.
 */
export async function sdkRefuses(items: readonly SseItem[]): Promise<string | undefined> {
  const body = wire(items);
  const client = new Anthropic({
    apiKey: 'sk-ant-oracle',
    baseURL: 'http://anthropic.invalid',
    maxRetries: 0,
    fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
  });
  const stream = client.messages.stream({ model: 'claude-test-1', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
  try {
    await stream.finalMessage();
    return undefined;
  } catch (error) {
    if (error instanceof Anthropic.APIError && error.status === undefined && items.some((i) => typeOf(i) === 'error')) return undefined;
    return error instanceof Error ? `${error.constructor.name}: ${error.message}` : String(error);
  }
}
