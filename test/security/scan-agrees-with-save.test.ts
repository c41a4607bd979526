import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Cassette, makeRedactor, redactCassette } from '../../src/cassette/index.js';

// Field names secret and not, in the spellings servers use, and leaves a scrub must judge: words, numbers, a
// scheme name, a credential shape.
const key = fc.constantFrom('password', 'Pwd', 'auth', 'token', 'api_key', 'SIG', 'note', 'id', 'items', 'type', 'name');
const leaf = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('bearer', 'hunter2', 'swordfish1', 'sk-Ab3dE9fGh1JkLmN0pQr5St'),
);
const tree = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(key, tie('node'), { maxKeys: 3 })),
})).node;

const cassetteOf = (json: unknown): Cassette => ({
  version: 1,
  meta: { recorder: 't', target: 'http://127.0.0.1:1', recordedAt: '2026-01-01T00:00:00.000Z' },
  interactions: [{ seq: 1, request: { method: 'POST', path: '/', headers: {}, body: { json } }, timing: { start: 0 } }],
});

describe('bench scan and a save', () => {
  it('agree: scan reports a secret in a body exactly when saving it would replace something', () => {
    const redactor = makeRedactor();
    fc.assert(
      fc.property(tree, (json) => {
        const c = cassetteOf(json);
        const changed = JSON.stringify(redactCassette(c).interactions[0]?.request.body) !== JSON.stringify(c.interactions[0]?.request.body);
        expect(redactor.findSecrets(c).length > 0).toBe(changed);
      }),
      { numRuns: 1000 },
    );
  });
});
