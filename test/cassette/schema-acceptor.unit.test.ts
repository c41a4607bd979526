import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writeCanonicalYamlItem } from '../../src/cassette/canonical-yaml.js';
import { readCanonicalYaml } from '../../src/cassette/read-canonical-yaml.js';
import { bodySchema, interactionSchema } from '../../src/cassette/schema.js';
import { compileAcceptor } from '../../src/cassette/schema-acceptor.js';
import { runsOf } from '../helpers/soak.js';
import { interactionArb } from './arbitraries.js';

const accepts = compileAcceptor(interactionSchema);
const acceptsAnyOrder = compileAcceptor(interactionSchema, { anyOrder: true });
const RUNS = runsOf(1000, 10_000);

/** The same data with its keys in the same order: what the loader hands on either way. */
function sameData(a: unknown, b: unknown): void {
  expect(a).toStrictEqual(b);
  const keysInOrder = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(keysInOrder) : v && typeof v === 'object' ? Object.entries(v).map(([k, x]) => [k, keysInOrder(x)]) : v;
  expect(keysInOrder(a)).toStrictEqual(keysInOrder(b));
}

/** Every container inside a value, with a way to change it. */
function containers(value: unknown, out: (Record<string, unknown> | unknown[])[] = []): (Record<string, unknown> | unknown[])[] {
  if (value && typeof value === 'object') {
    out.push(value as Record<string, unknown>);
    for (const v of Object.values(value)) containers(v, out);
  }
  return out;
}

const oddValue = fc
  .constantFrom<unknown>(
    undefined,
    null,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    -1,
    0,
    1.5,
    99,
    600,
    '',
    'x',
    '!!!',
    'server-closed',
    '/p',
    true,
    [],
    ['a', 1],
    {},
    { json: 1 },
    { text: 'a', json: 1 },
    { base64: 'aGk=' },
    new Date(0),
  )
  .map((v) => structuredClone(v));

const mutation = fc.record({
  target: fc.nat(),
  kind: fc.constantFrom('set', 'delete', 'add', 'proto', 'reverse'),
  key: fc.nat(),
  value: oddValue,
  name: fc.constantFrom('seq', 'json', 'text', 'stream', 'body', 'extra', 'status', 'at', 'after', 'events'),
});

type Mutation = { target: number; kind: string; key: number; value: unknown; name: string };

function mutate(value: unknown, m: Mutation): void {
  const all = containers(value);
  const target = all[m.target % all.length] as Record<string, unknown>;
  const keys = Object.keys(target);
  const key = keys.length ? (keys[m.key % keys.length] as string) : m.name;
  if (Array.isArray(target) && m.kind !== 'add') {
    // Elements change, or go: never a named property, which no parser makes.
    const at = m.key % (target.length || 1);
    if (m.kind === 'delete') target.splice(at, 1);
    else if (m.kind === 'set' && target.length) target[at] = m.value;
    else target.reverse();
    return;
  }
  if (m.kind === 'set') target[key] = m.value;
  else if (m.kind === 'delete') delete target[key];
  // A parser's arrays have elements only: an array grows by one.
  else if (m.kind === 'add' && Array.isArray(target)) target.push(m.value);
  else if (m.kind === 'add') target[m.name] = m.value;
  else if (m.kind === 'proto')
    Object.defineProperty(target, '__proto__', { value: m.value, enumerable: true, writable: true, configurable: true });
  else {
    // The same fields in another order.
    const entries = Object.entries(target).reverse();
    for (const k of keys) delete target[k];
    for (const [k, v] of entries) Object.defineProperty(target, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
}

// As the reader makes them: plain objects (fast-check's records have no prototype).
const interaction = interactionArb.map((i) => structuredClone({ seq: 1, ...i }));

describe('the schema acceptor (the loader keeps what zod would copy unchanged)', () => {
  it(`accepts every valid interaction written in schema order, as zod does, without a copy (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(interaction, (i) => {
        expect(accepts(i)).toBe(true);
        const parsed = interactionSchema.safeParse(i);
        expect(parsed.success).toBe(true);
        sameData(parsed.data, i);
      }),
      { numRuns: RUNS },
    );
  });

  it(`never says yes where zod says no or would hand on something else (${RUNS} mutated interactions)`, () => {
    let said = 0;
    fc.assert(
      fc.property(interaction, fc.array(mutation, { minLength: 1, maxLength: 3 }), (generated, ms) => {
        // A copy: fast-check shrinks from the value it generated.
        const i = structuredClone(generated);
        for (const m of ms) mutate(i, m);
        if (!accepts(i)) return;
        said++;
        const parsed = interactionSchema.safeParse(i);
        expect(parsed.success, JSON.stringify(parsed.error?.issues[0])).toBe(true);
        sameData(parsed.data, i);
      }),
      { numRuns: RUNS },
    );
    // Some mutations keep an interaction valid (a body swapped for another body): the check above has cases to judge.
    expect(said).toBeGreaterThan(0);
  });

  it('refuses what zod refuses in each leaf: formats, bounds, integers, NaN, exactly one body', () => {
    const body = compileAcceptor(bodySchema);
    expect(body({ base64: 'aGk=' })).toBe(true);
    expect(body({ base64: '!!!' })).toBe(false);
    expect(body({ json: 1, text: 'x' })).toBe(false);
    expect(body({ omitted: { bytes: 1, sha256: '0'.repeat(64) } })).toBe(true);
    expect(body({ omitted: { bytes: 1.5, sha256: '0'.repeat(64) } })).toBe(false);
    expect(body({ omitted: { bytes: 1, sha256: 'g'.repeat(64) } })).toBe(false);
    const ok = { seq: 1, request: { method: 'GET', path: '/', headers: {} }, response: { status: 200, headers: {} }, timing: { start: 0 } };
    expect(accepts(ok)).toBe(true);
    for (const broken of [
      { ...ok, seq: 0 },
      { ...ok, seq: 1.5 },
      { ...ok, timing: { start: Number.NaN } },
      { ...ok, timing: { start: -1 } },
      { ...ok, request: { ...ok.request, path: 'x' } },
      { ...ok, request: { ...ok.request, method: '' } },
      { ...ok, response: { status: 600, headers: {} } },
      { ...ok, response: { status: 200, headers: { a: 1 } } },
      { ...ok, response: { status: 200, headers: {}, body: { text: 'a' }, stream: { events: [], end: 'broken' } } },
      { seq: 1, request: ok.request, timing: ok.timing },
    ]) {
      expect(accepts(broken)).toBe(false);
      expect(interactionSchema.safeParse(broken).success).toBe(false);
    }
  });

  it('takes every HTTP interaction of the committed cassettes as written (the fast path is the path)', () => {
    const root = join(import.meta.dirname, '..', '..', 'cassettes');
    let http = 0;
    for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.yaml')) continue;
      const raw = readCanonicalYaml(readFileSync(join(entry.parentPath, entry.name), 'utf8')) as { interactions?: unknown[] } | undefined;
      for (const i of raw?.interactions ?? []) {
        // A WebSocket frame is written seq first, not in schema order: zod copies it (same verdict, its own order).
        if ((i as { response?: { websocket?: unknown } }).response?.websocket) continue;
        expect(accepts(i)).toBe(true);
        http++;
      }
    }
    expect(http).toBeGreaterThan(500);
  });

  it(`in any key order, says yes only where zod does, and the YAML is what zod's copy gives (${RUNS} mutated interactions)`, () => {
    const yaml = (v: unknown) => writeCanonicalYamlItem(v as Record<string, unknown>);
    let said = 0;
    fc.assert(
      fc.property(interaction, fc.array(mutation, { minLength: 0, maxLength: 3 }), (generated, ms) => {
        const i = structuredClone(generated);
        for (const m of ms) mutate(i, m);
        if (!acceptsAnyOrder(i)) {
          // Only the order is forgiven: whatever the strict acceptor takes, this one takes too.
          expect(accepts(i)).toBe(false);
          return;
        }
        said++;
        const parsed = interactionSchema.safeParse(i);
        expect(parsed.success, JSON.stringify(parsed.error?.issues[0])).toBe(true);
        expect(yaml(i)).toBe(yaml(parsed.data));
      }),
      { numRuns: RUNS },
    );
    expect(said).toBeGreaterThan(RUNS / 4);
  });

  it('takes an interaction whose keys the recorder wrote out of schema order (timing before response)', () => {
    const recorded = {
      seq: 2,
      request: { method: 'GET', headers: { accept: '*/*' }, path: '/v1/items/1?v=1' },
      timing: { start: 1, end: 2 },
      response: { headers: { 'content-type': 'application/json' }, status: 200, body: { json: { ok: true } } },
    };
    expect(accepts(recorded)).toBe(false);
    expect(acceptsAnyOrder(recorded)).toBe(true);
    expect(acceptsAnyOrder({ ...recorded, extra: 1 })).toBe(false);
    const { request: _r, ...noRequest } = recorded;
    expect(acceptsAnyOrder(noRequest)).toBe(false);
  });
});
