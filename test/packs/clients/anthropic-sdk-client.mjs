// The official Anthropic SDK as a user's app runs it: one streamed message per scenario, each accumulated by
// MessageStream into its final message. Prints one JSON line per scenario. Usage: node anthropic-sdk-client.mjs URL
import Anthropic from '@anthropic-ai/sdk';

const client = new Anthropic({ baseURL: process.argv[2], apiKey: process.env.ANTHROPIC_API_KEY, maxRetries: 0 });
const tools = [
  { name: 'get_weather', description: 'The weather in a city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
];

for (const scenario of ['hello', 'weather', 'think', 'overload']) {
  const stream = client.messages.stream({
    model: 'claude-test-1',
    max_tokens: 256,
    tools,
    messages: [{ role: 'user', content: `scenario: ${scenario}` }],
  });
  let text = '';
  stream.on('text', (piece) => {
    text += piece;
  });
  try {
    const message = await stream.finalMessage();
    const blocks = message.content.map((b) => (b.type === 'tool_use' ? { type: b.type, input: b.input } : { type: b.type }));
    console.log(JSON.stringify({ scenario, stop_reason: message.stop_reason, blocks, text, output_tokens: message.usage.output_tokens }));
  } catch (error) {
    console.log(JSON.stringify({ scenario, error: error?.error?.error?.type ?? String(error), text }));
  }
}
