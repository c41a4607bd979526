import { describe, expect, it } from 'vitest';
import { routeTemplate } from '../../src/net/route-template.js';

describe('routes compare by template, ids left out', () => {
  it.each([
    ['POST', '/api/sessions/api_1796154474_0fb66422/chat/stream', 'POST /api/sessions/{id}/chat/stream'], // hermes 0.19.0
    ['GET', '/v1/runs/run_d2c4225de66845b4881a7d10a6f5ec5b/events', 'GET /v1/runs/{id}/events'],
    ['GET', '/v1/sessions/4b80a362f135433fbb7bab2764986108/items?order=asc', 'GET /v1/sessions/{id}/items'],
    ['GET', '/session/ses_1a2b3c4d5e6f/message', 'GET /session/{id}/message'],
    ['POST', '/v1/chat_completions/stream_events', 'POST /v1/chat_completions/stream_events'], // words with underscores stay
    ['GET', '/v1/items/42', 'GET /v1/items/{id}'],
  ])('%s %s is %s', (method, path, template) => {
    expect(routeTemplate(method, path)).toBe(template);
  });
});
