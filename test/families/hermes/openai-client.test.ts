import { join } from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { type Cassette, type Interaction, loadCassette } from '../../../src/cassette/index.js';
import { REPLAY_ORIGIN } from '../../../src/families/kit/index.js';
import { cassetteFetch } from '../../../src/probing/index.js';
import { SseParser } from '../../../src/sse/index.js';

const HERMES = join(import.meta.dirname, '..', '..', '..', 'cassettes', 'hermes');

/** The official client, pointed at a replay of one cassette: no socket, no server. */
async function clientFor(file: string): Promise<{ client: OpenAI; cassette: Cassette }> {
  const cassette = await loadCassette(join(HERMES, file));
  const replay = cassetteFetch([{ name: file, cassette }]);
  const fetch = (input: string | URL | Request, init?: RequestInit) =>
    replay(String(input instanceof Request ? input.url : input), init ?? {});
  return { client: new OpenAI({ apiKey: 'replay-key', baseURL: `${REPLAY_ORIGIN}/v1`, fetch, maxRetries: 0 }), cassette };
}

/** The recorded stream's events, parsed back from the cassette as the server sent them. */
function recordedEvents(cassette: Cassette, path: string): { event?: string | undefined; data: Record<string, unknown> }[] {
  const events = cassette.interactions.find((i) => i.request.path === path)?.response?.stream?.events ?? [];
  return events.flatMap((e) =>
    e.data && e.data !== '[DONE]' ? [{ event: e.event, data: JSON.parse(e.data) as Record<string, unknown> }] : [],
  );
}

describe('the official openai client on replayed Hermes streams', () => {
  it('assembles the recorded chat completion text from the replayed stream', async () => {
    const { client, cassette } = await clientFor('chat_stream_reasoning.yaml');
    const recorded = recordedEvents(cassette, '/v1/chat/completions')
      .map((e) => (e.data.choices as { delta?: { content?: string } }[] | undefined)?.[0]?.delta?.content ?? '')
      .join('');
    expect(recorded.length).toBeGreaterThan(0);
    const stream = await client.chat.completions.create({
      model: 'hermes-agent',
      stream: true,
      messages: [{ role: 'user', content: 'What is 2+2? Use the tool to run: echo 4' }],
    });
    let text = '';
    let reasoning = 0;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      // Hermes's named hermes.tool.progress frames reach the client as non-chunk events: skipped, as a client would.
      const choice = (chunk as { choices?: OpenAI.Chat.Completions.ChatCompletionChunk['choices'] }).choices?.[0];
      if (!choice) continue;
      text += choice.delta.content ?? '';
      if ((choice.delta as { reasoning_content?: string }).reasoning_content) reasoning++;
      finish = choice.finish_reason ?? finish;
    }
    expect(text).toBe(recorded);
    expect(reasoning).toBeGreaterThan(0);
    expect(finish).toBe('stop');
  });

  it('assembles the recorded Responses text from the replayed stream', async () => {
    const { client, cassette } = await clientFor('responses_stream.yaml');
    const done = recordedEvents(cassette, '/v1/responses').find((e) => e.event === 'response.output_text.done')?.data.text;
    expect(typeof done).toBe('string');
    const stream = await client.responses.create({ input: 'Use the tool to run: ls', stream: true });
    let text = '';
    const types: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(text).toBe(done);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.output_item.added');
  });

  it('reads the same stream bytes the recorder captured (the replay is byte-faithful for the SDK)', async () => {
    const { cassette } = await clientFor('chat_stream_reasoning.yaml');
    const fetch = cassetteFetch([{ name: 'chat', cassette }]);
    const interaction = cassette.interactions.find((i) => i.request.path === '/v1/chat/completions') as Interaction;
    const res = await fetch(`${REPLAY_ORIGIN}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify((interaction.request.body as { json: unknown }).json),
    });
    const frames = new SseParser().push(new Uint8Array(await res.arrayBuffer()));
    expect(frames.map((f) => (f.kind === 'event' ? (f.event ?? f.data?.slice(0, 6)) : f.kind))).toEqual(
      interaction.response?.stream?.events.map((e) => e.event ?? e.data?.slice(0, 6)),
    );
  });
});
