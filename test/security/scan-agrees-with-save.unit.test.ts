import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Cassette, makeRedactor, redactCassette, serializeCassette } from '../../src/cassette/index.js';
import { scanText } from '../../src/scan/scan-secrets.js';

// Field names secret and not, in the spellings servers use, and leaves a scrub must judge: words, numbers, a
// scheme name, a credential shape.
// Protocol identifiers that end in `token` (MCP's progressToken, page tokens) stand beside them (decision 0016).
const key = fc.constantFrom(
  'password',
  'Pwd',
  'auth',
  'token',
  'api_key',
  'SIG',
  'note',
  'id',
  'items',
  'type',
  'name',
  'progressToken',
  'nextPageToken',
  'resume_token',
  'client_token',
);
const leaf = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.integer(),
  fc.integer({ min: 10_000_000, max: Number.MAX_SAFE_INTEGER }),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('bearer', 'hunter2', 'swordfish1', 'sk-Ab3dE9fGh1JkLmN0pQr5St', 'c0ffee42', 'Zq8xW3vN7mK2pL9r'),
);
const tree = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(key, tie('node'), { maxKeys: 3 })),
})).node;

const headerName = fc.constantFrom('authorization', 'x-api-key', 'cookie', 'x-session-token', 'accept', 'x-request-id', 'user-agent');
const headerValue = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('Bearer hunter2xyz', 'Basic ', '', 'sid=abc123; theme=dark', 'text/plain'),
);

// Free text the recorder keeps beside bodies: SSE ids, event names and comments, close reasons, failure messages.
const note = fc.constantFrom(
  '',
  'done',
  'token=hunter2xyz',
  'token=abc',
  'use sk-Ab3dE9fGh1JkLmN0pQr5St now',
  'Bearer Zq8xW3vN7mK2pL9r',
  'progressToken: 7',
);
const path = fc.constantFrom(
  '/',
  '/v1?q=hello',
  '/v1?token=abc123xyz',
  '/v1?token=abc',
  '/v1?api_key=',
  '/v1?access_token=hunter2xyz&x=1',
  '/v1?sig=',
  '/v1?access_token=Zq8x%2FW3vN%2B7mK2pL9r',
  '/v1?page_token=Zq8xW3vN7mK2pL9r&progressToken=12',
  '/files/sk-Ab3dE9fGh1JkLmN0pQr5St/raw',
  '/v1?password=pw',
);

/** A body in every place a cassette holds one: a request body, SSE data, a WebSocket frame; request headers and query. */
const cassetteOf = (json: unknown, headers: Record<string, string>, where: 'body' | 'sse' | 'ws', at = '/', text = ''): Cassette => ({
  version: 1,
  meta: { recorder: 't', target: 'http://127.0.0.1:1', recordedAt: '2026-01-01T00:00:00.000Z' },
  interactions: [
    {
      seq: 1,
      request: { method: 'POST', path: at, headers, ...(where === 'body' ? { body: { json } } : {}) },
      ...(where === 'sse'
        ? {
            response: {
              status: 200,
              headers: {},
              stream: {
                events: [
                  { at: 1, after: 1, data: JSON.stringify(json) },
                  ...(text
                    ? [
                        { at: 2, after: 1, id: text, event: text },
                        { at: 3, after: 1, comment: text },
                      ]
                    : []),
                ],
                end: 'server-closed',
              },
            },
          }
        : where === 'ws'
          ? {
              response: {
                status: 101,
                headers: {},
                websocket: {
                  frames: [
                    { at: 1, from: 'server' as const, after: 1, json },
                    ...(text ? [{ at: 2, from: 'server' as const, after: 1, close: { code: 1000, reason: text } }] : []),
                  ],
                  end: 'server-closed',
                },
              },
            }
          : text
            ? { failure: { code: 'upstream_reset', message: text } }
            : { response: { status: 204, headers: {} } }),
      timing: { start: 0 },
    },
  ],
});

/** A cassette with the tree in a body, an SSE item or a frame, beside headers, a query and a note. */
const anyCassette = fc
  .tuple(
    tree,
    fc.dictionary(headerName, headerValue, { maxKeys: 2 }),
    fc.constantFrom('body' as const, 'sse' as const, 'ws' as const),
    path,
    note,
  )
  .map(([json, headers, where, at, text]) => cassetteOf(json, headers, where, at, text));

describe('bench scan and a save', () => {
  it('agree: scan reports a secret exactly when saving would replace something, in bodies, SSE items, frames, headers, query and notes', () => {
    const redactor = makeRedactor();
    fc.assert(
      fc.property(anyCassette, (c) => {
        const changed = JSON.stringify(redactCassette(c)) !== JSON.stringify(c);
        expect(redactor.findSecrets(c).length > 0).toBe(changed);
      }),
      { numRuns: 2000 },
    );
  });

  it('agree on what a save writes: a saved cassette scans clean, placeholders in every spelling included', () => {
    const redactor = makeRedactor();
    const folders = { host: 'no-such-host.invalid', workspace: '/no/such/workspace', home: '/no/such/home', tmp: '/no/such/tmp' };
    fc.assert(
      fc.property(anyCassette, (c) => {
        const saved = serializeCassette(c);
        expect(scanText(saved, 'saved.yaml', redactor, folders).findings).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });
});
