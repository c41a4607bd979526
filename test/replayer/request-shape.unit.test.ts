import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Body, type Cassette, decodeBody, parseCassette, serializeCassette } from '../../src/cassette/index.js';
import { ReplayEngine } from '../../src/replayer/index.js';

// Characters a URL treats differently: escapes, dot segments, quotes, spaces, non-ASCII, `?` in a query, `//`.
const pathChar = fc.constantFrom(...'az09_.~!$&()*+,;=:@/-?%#\\ \'"é'.split(''), '%2e', '%27', '/./', '/../', '//');
const path = fc.array(pathChar, { maxLength: 8 }).map((parts) => `/${parts.join('')}`);
const body: fc.Arbitrary<Body | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue().map((json) => ({ json })),
  fc.oneof(fc.string(), fc.json(), fc.constantFrom('{"a": 1}', ' [1]', 'null', '')).map((text) => ({ text })),
);

function cassetteOf(requests: { method: string; path: string; body: Body | undefined }[]): Cassette {
  return parseCassette(
    serializeCassette({
      version: 1,
      meta: { recorder: 'test', target: 'http://127.0.0.1:9', recordedAt: '2026-01-01T00:00:00.000Z' },
      interactions: requests.map((r, k) => ({
        seq: k + 1,
        request: { method: r.method, path: r.path, headers: {}, ...(r.body ? { body: r.body } : {}) },
        response: { status: 200, headers: {}, body: { text: `answer ${k + 1}` } },
        timing: { start: k },
      })),
    }),
  );
}

describe('request shapes', () => {
  it('a request matches its recording whether its path is sent as recorded or as a URL normalises it, whatever its body', () => {
    fc.assert(
      fc.property(fc.constantFrom('GET', 'POST'), path, body, fc.boolean(), (method, recordedPath, recordedBody, normalised) => {
        const url = new URL(`http://replay${recordedPath}`);
        const engine = new ReplayEngine([{ name: 'c', cassette: cassetteOf([{ method, path: recordedPath, body: recordedBody }]) }]);
        const sent = normalised ? `${url.pathname}${url.search}` : recordedPath;
        // The live request carries the bytes the recorded body stands for, as a client sends them.
        const answer = engine.handle({ method, path: sent, headers: {}, body: decodeBody(recordedBody) });
        expect(answer.kind, `${method} ${sent} for recorded ${recordedPath} ${JSON.stringify(recordedBody)}`).toBe('response');
      }),
      { numRuns: 1000 },
    );
  });

  it('a request matches nothing when its path, query or body differs from its recording, and matches when only key order does', () => {
    fc.assert(
      fc.property(path, fc.nat(), pathChar, fc.boolean(), fc.jsonValue(), fc.jsonValue(), (a, at, ch, insert, x, y) => {
        // The live path is the recorded one with one edit: near misses are where a wrong split shows.
        const k = 1 + (at % a.length);
        const b = insert ? a.slice(0, k) + ch + a.slice(k) : a.slice(0, k - 1 || 1) + a.slice(k);
        const ua = new URL(`http://replay${a}`);
        const ub = new URL(`http://replay${b}`);
        const same = ua.pathname === ub.pathname && sortedQuery(ua) === sortedQuery(ub);
        const engine = new ReplayEngine([{ name: 'c', cassette: cassetteOf([{ method: 'POST', path: a, body: { json: x } }]) }]);
        const answer = engine.handle({ method: 'POST', path: b, headers: {}, body: Buffer.from(JSON.stringify(y)) });
        if (!same || stable(x) !== stable(y)) expect(answer.kind).toBe('unmatched');
        else expect(answer.kind).toBe('response');
      }),
      { numRuns: 1500 },
    );
  });

  it("a bodiless request matches exactly when its path and query (ignored keys dropped) equal a recording's, sent as recorded or not", () => {
    const queryChar = fc.constantFrom(...'ab=&+?'.split(''), '%20', '%2B', 'é');
    const target = fc.array(queryChar, { maxLength: 6 }).map((parts) => `/p?${parts.join('')}`);
    fc.assert(
      fc.property(fc.oneof(path, target), fc.oneof(path, target), fc.subarray(['a', 'b', 'a b']), (a, b, ignoreQuery) => {
        const ua = new URL(`http://replay${a}`);
        const ub = new URL(`http://replay${b}`);
        const drop = (u: URL) => {
          for (const k of ignoreQuery) u.searchParams.delete(k);
          return sortedQuery(u);
        };
        const same = ua.pathname === ub.pathname && drop(ua) === drop(ub);
        const cassette = cassetteOf([{ method: 'GET', path: a, body: undefined }]);
        const engine = new ReplayEngine([{ name: 'c', cassette }], { ignoreQuery });
        const answer = engine.handle({ method: 'GET', path: b, headers: {}, body: Buffer.alloc(0) });
        expect(answer.kind, `recorded ${a}, sent ${b}, ignoring ${ignoreQuery}`).toBe(same ? 'response' : 'unmatched');
      }),
      { numRuns: 2000 },
    );
  });

  it('a request sent as recorded, or with its secret where the recording holds a placeholder, gets that recording', () => {
    const token = 'sk-proj-Xq7TmR2vLp9WnZ4sKd8YhB3cFj6G';
    const cassette = cassetteOf([
      { method: 'GET', path: '/v1/items?limit=2', body: undefined },
      { method: 'GET', path: '/v1/items?api_key=%3CREDACTED%3Aapi_key%3E', body: undefined },
    ]);
    const engine = new ReplayEngine([{ name: 'c', cassette }]);
    const get = (p: string) => engine.handle({ method: 'GET', path: p, headers: {}, body: Buffer.alloc(0) });
    expect(get('/v1/items?limit=2')).toMatchObject({ kind: 'response', entry: { seq: 1 } });
    expect(get(`/v1/items?api_key=${token}`)).toMatchObject({ kind: 'response', entry: { seq: 2 } });
    // The placeholder itself, sent raw, is no recording's verbatim path: it goes through redaction like any request.
    expect(get('/v1/items?limit=3').kind).toBe('unmatched');
  });

  it('recordings of other paths wait unshaped until a request takes their path, and still count as unused', () => {
    const engine = new ReplayEngine([
      {
        name: 'c',
        cassette: cassetteOf([
          { method: 'GET', path: '/a?x=1', body: undefined },
          { method: 'GET', path: '/b', body: undefined },
          { method: 'POST', path: '/a', body: { json: { k: 1 } } },
        ]),
      },
    ]);
    expect(engine.handle({ method: 'GET', path: '/a?x=1', headers: {}, body: Buffer.alloc(0) }).kind).toBe('response');
    expect(engine.unused()).toEqual([
      { cassette: 'c', seq: 2, method: 'GET', path: '/b' },
      { cassette: 'c', seq: 3, method: 'POST', path: '/a' },
    ]);
    const miss = engine.handle({ method: 'GET', path: '/c', headers: {}, body: Buffer.alloc(0) });
    expect(miss.kind).toBe('unmatched');
    if (miss.kind === 'unmatched') expect(miss.error.message).toContain('/b');
  });
});

function sortedQuery(u: URL): string {
  return JSON.stringify([...u.searchParams].sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0)));
}

/** Structure without key order: the replayer compares JSON bodies as structure. */
function stable(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`)
    .join(',')}}`;
}
