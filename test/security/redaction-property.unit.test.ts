import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Cassette, type Interaction, isSecretName, redactCassette, serializeCassette } from '../../src/cassette/index.js';

/**
 * Generated bodies, SSE streams and WebSocket frames with secrets at random
 * paths: under secret names (any style), as credential shapes standing alone,
 * inside text, and split across consecutive stream deltas. No secret may
 * survive; every value that held none must come out unchanged.
 */

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const chars = (alphabet: string, n: number) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: n, maxLength: n }).map((a) => a.join(''));
const entropy = (s: string) => {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  return [...counts.values()].reduce((h, n) => h - (n / s.length) * Math.log2(n / s.length), 0);
};

// Real credentials are random; the rule set (like gitleaks) skips low-entropy look-alikes such as `ghp_aaaa…`.
const shapedSecret = fc
  .oneof(
    chars(ALNUM, 32).map((r) => `sk-${r}`),
    chars(ALNUM, 36).map((r) => `ghp_${r}`),
    chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16).map((r) => `AKIA${r}`),
    chars(ALNUM, 20).map((r) => `glpat-${r}`),
    chars(ALNUM, 24).map((r) => `sk_live_${r}`),
    fc.tuple(chars(ALNUM, 20), chars(ALNUM, 20), chars(ALNUM, 24)).map(([a, b, c]) => `eyJ${a}.eyJ${b}.${c}`),
  )
  .filter((s) => entropy(s) > 3.6);
const secretName = fc.constantFrom(
  'password',
  'accessToken',
  'client_secret',
  'api_key',
  'id_token',
  'Private-Key',
  'REFRESH_TOKEN',
  'x-api-key',
  'sessionToken',
);
const namedValue = chars(ALNUM, 16);

const word = fc.stringMatching(/^[a-z]{1,6}$/);
const plainText = fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));
const plainKey = word.filter((k) => !isSecretName(k, 'field'));

type Tree =
  | { plain: string | number }
  | { secret: string; inText: boolean }
  | Tree[]
  | { fields: [string, Tree][]; named?: [string, string] };

const treeArb: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    plainText.map((plain) => ({ plain })),
    fc.integer().map((plain) => ({ plain })),
    fc.record({ secret: shapedSecret, inText: fc.boolean() }),
    fc.array(tie('tree'), { maxLength: 3 }),
    fc.record(
      {
        fields: fc.uniqueArray(fc.tuple(plainKey, tie('tree')), { maxLength: 3, selector: ([k]) => k }),
        named: fc.tuple(secretName, namedValue),
      },
      { requiredKeys: ['fields'] },
    ),
  ),
})).tree;

interface Built {
  json: unknown;
  secrets: string[];
  /** Plain leaves: where they sit and what they must still be. */
  plain: { path: (string | number)[]; value: string | number }[];
}

function build(t: Tree, path: (string | number)[] = [], out: Built = { json: undefined, secrets: [], plain: [] }): unknown {
  if (Array.isArray(t)) return t.map((c, k) => build(c, [...path, k], out));
  if ('plain' in t) {
    out.plain.push({ path, value: t.plain });
    return t.plain;
  }
  if ('secret' in t) {
    out.secrets.push(t.secret);
    return t.inText ? `use ${t.secret} now` : t.secret;
  }
  const obj: Record<string, unknown> = {};
  for (const [k, v] of t.fields) obj[k] = build(v, [...path, k], out);
  if (t.named) {
    obj[t.named[0]] = t.named[1];
    out.secrets.push(t.named[1]);
  }
  return obj;
}
const built = (t: Tree): Built => {
  const out: Built = { json: undefined, secrets: [], plain: [] };
  out.json = build(t, [], out);
  return out;
};
/** Whether the nearest earlier event with a string at `path` holds a whole secret there. */
function followsSecret(earlier: readonly Built[], path: (string | number)[]): boolean {
  const before = earlier.findLast((e) => typeof at(e.json, path) === 'string');
  return before?.secrets.includes(at(before.json, path) as string) ?? false;
}
const at = (v: unknown, path: (string | number)[]) => path.reduce<unknown>((x, k) => (x as Record<string | number, unknown>)?.[k], v);

const interaction = (seq: number, over: Partial<Interaction>): Interaction =>
  ({
    seq,
    request: { method: 'POST', path: `/p/${seq}`, headers: {} },
    response: { status: 200, headers: {} },
    timing: { start: 0, end: 1 },
    ...over,
  }) as Interaction;
const cassetteOf = (interactions: Interaction[]): Cassette =>
  ({
    version: 1,
    meta: { recorder: 'tapedeck test', recordedAt: '2026-01-01T00:00:00.000Z', target: 'http://127.0.0.1:1' },
    interactions,
  }) as Cassette;

const objectTree = treeArb.filter((t) => !Array.isArray(t) && 'fields' in t);

describe('redaction, for any traffic', () => {
  it('leaves no secret and changes no other value in JSON bodies, SSE streams and WebSocket frames', () => {
    fc.assert(
      fc.property(
        objectTree,
        fc.array(objectTree, { minLength: 1, maxLength: 4 }),
        fc.array(objectTree, { minLength: 1, maxLength: 3 }),
        fc.tuple(shapedSecret, fc.integer({ min: 1, max: 30 }), plainText),
        (bodyTree, eventTrees, frameTrees, [split, cut, prose]) => {
          const body = built(bodyTree);
          const events = eventTrees.map(built);
          const frames = frameTrees.map(built);
          const at1 = Math.min(cut, split.length - 1);
          const c = cassetteOf([
            interaction(1, { request: { method: 'POST', path: '/json', headers: {}, body: { json: body.json } } } as Partial<Interaction>),
            interaction(2, {
              response: {
                status: 200,
                headers: { 'content-type': 'text/event-stream' },
                stream: {
                  events: [
                    ...events.map((e, k) => ({ at: k, after: 0, data: JSON.stringify(e.json) })),
                    // A secret a model streams in two pieces, inside prose.
                    { at: 8, after: 0, event: 'delta', data: JSON.stringify({ delta: `${prose} ${split.slice(0, at1)}` }) },
                    { at: 9, after: 0, event: 'delta', data: JSON.stringify({ delta: `${split.slice(at1)} ${prose}` }) },
                  ],
                  end: 'server-closed',
                },
              },
            } as Partial<Interaction>),
            interaction(3, {
              response: {
                status: 101,
                headers: {},
                websocket: { frames: frames.map((f, k) => ({ from: 'server', at: k, after: 0, json: f.json })), end: 'server-closed' },
              },
            } as Partial<Interaction>),
          ]);
          const clean = redactCassette(c);
          const text = serializeCassette(c);
          for (const s of [...body.secrets, ...events.flatMap((e) => e.secrets), ...frames.flatMap((f) => f.secrets), split])
            expect(text).not.toContain(s);
          const [json, stream, ws] = clean.interactions;
          for (const p of body.plain)
            expect(at(json?.request.body && 'json' in json.request.body ? json.request.body.json : undefined, p.path)).toEqual(p.value);
          events.forEach((e, k) => {
            const data = JSON.parse(stream?.response?.stream?.events[k]?.data ?? 'null');
            // Decision 0013: the strings at one path of successive events are one text, as a client assembles
            // deltas; a value that follows a whole secret there may lose the start a rule reads as its continuation.
            const continuing = e.plain.filter((p) => typeof p.value === 'string' && followsSecret(events.slice(0, k), p.path));
            for (const p of e.plain) {
              if (continuing.includes(p)) expect((p.value as string).endsWith(at(data, p.path) as string)).toBe(true);
              else expect(at(data, p.path)).toEqual(p.value);
            }
            if (e.secrets.length === 0 && continuing.length === 0)
              expect(stream?.response?.stream?.events[k]?.data).toBe(JSON.stringify(e.json));
          });
          frames.forEach((f, k) => {
            const frame = ws?.response?.websocket?.frames[k];
            for (const p of f.plain) expect(at(frame?.json, p.path)).toEqual(p.value);
          });
          const deltas = (stream?.response?.stream?.events.slice(-2) ?? []).map((e) => JSON.parse(e.data ?? '{}').delta).join('');
          expect(deltas).toContain(prose);
          expect(deltas).toContain('<redacted:');
        },
      ),
      { numRuns: 150 },
    );
  });
});
