import { hostname } from 'node:os';
import fc from 'fast-check';
import type { Cassette, Interaction, MachineFolders } from '../../src/cassette/index.js';

/**
 * Text made of a machine's own names and what surrounds them in real traffic
 * (paths, URLs, host-named fields, words, brackets that read like placeholders).
 */
export function machineTextArb(folders: MachineFolders): fc.Arbitrary<string> {
  const host = folders.host ?? 'vm';
  const pieces = [
    host,
    `"${host}"`,
    `{"${host}":1}`,
    `"host":"${host}"`,
    `"serverName": "${host}"`,
    `{"hosts":[{"name":"${host}"}]}`,
    `"name":"${host}"`,
    `http://${host}:8080/`,
    `ws://u@${host}/`,
    folders.workspace,
    `${folders.workspace}/x`,
    folders.home,
    `${folders.home}/.config`,
    folders.tmp,
    `${folders.tmp}/a b`,
    '<tmp>',
    '<<host>>',
    '<workspace',
    'home>',
    '<',
    '>',
    '/',
    '"',
    ':',
    ' ',
    '.',
    '-',
    'word',
  ];
  return fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 4 })), { maxLength: 12 }).map((p) => p.join(''));
}

/** This machine's names, and a short common word as host: CI machines are called `vm`. */
const textArb = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', minLength: 1 }) },
  { weight: 1, arbitrary: machineTextArb({ workspace: process.cwd(), home: '/root', tmp: '/tmp', host: hostname() }) },
  { weight: 1, arbitrary: machineTextArb({ workspace: '/vm', home: '/home/vm', tmp: '/tmp', host: 'vm' }) },
);

const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);
const headerValue = fc.string({ unit: 'grapheme-ascii', maxLength: 20 });
export const headersArb = fc.dictionary(headerName, fc.oneof(headerValue, fc.array(headerValue, { minLength: 2, maxLength: 3 })), {
  maxKeys: 4,
});

export const jsonValueArb = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

export const bodyArb = fc.oneof(
  jsonValueArb.filter((v) => typeof v === 'object' && v !== null).map((json) => ({ json })),
  textArb.filter((t) => t.length > 0).map((text) => ({ text })),
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => ({ base64: Buffer.from(b).toString('base64') })),
);

const offsetArb = fc.double({ min: 0, max: 1e6, noNaN: true, noDefaultInfinity: true });
const lineArb = fc.string({ unit: 'grapheme', maxLength: 30 }).filter((s) => !/[\r\n]/.test(s));

export const sseItemArb = fc.oneof(
  fc.record({ at: offsetArb, after: fc.nat(50), comment: lineArb }),
  fc.record(
    {
      at: offsetArb,
      after: fc.nat(50),
      event: lineArb,
      id: lineArb,
      retry: fc.nat(),
      data: fc.oneof(fc.string({ unit: 'grapheme', maxLength: 60 }), textArb),
    },
    { requiredKeys: ['at', 'after'] },
  ),
);

export const interactionArb: fc.Arbitrary<Omit<Interaction, 'seq'>> = fc.record(
  {
    request: fc.record(
      {
        method: fc.constantFrom('GET', 'POST', 'DELETE', 'PATCH'),
        path: fc.webPath().map((p) => (p.startsWith('/') ? p : `/${p}`)),
        headers: headersArb,
        body: bodyArb,
      },
      { requiredKeys: ['method', 'path', 'headers'] },
    ),
    response: fc.oneof(
      fc.record(
        { status: fc.integer({ min: 100, max: 599 }), headers: headersArb, body: bodyArb },
        { requiredKeys: ['status', 'headers'] },
      ),
      fc.record({
        status: fc.constant(200),
        headers: headersArb,
        stream: fc.record(
          {
            events: fc.array(sseItemArb, { maxLength: 6 }),
            end: fc.constantFrom('server-closed', 'client-closed', 'proxy-closed', 'broken' as const),
            error: lineArb,
          },
          { requiredKeys: ['events', 'end'] },
        ),
      }),
    ),
    timing: fc.record({ start: offsetArb, headers: offsetArb, end: offsetArb }, { requiredKeys: ['start'] }),
  },
  { requiredKeys: ['request', 'response', 'timing'] },
) as fc.Arbitrary<Omit<Interaction, 'seq'>>;

export const cassetteArb: fc.Arbitrary<Cassette> = fc
  .record({
    labels: fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), lineArb, { maxKeys: 3 }),
    interactions: fc.array(interactionArb, { maxLength: 6 }),
  })
  .map(({ labels, interactions }) => ({
    version: 1 as const,
    meta: { recorder: 'tapedeck test', target: 'http://127.0.0.1:1', recordedAt: '2026-01-01T00:00:00.000Z', labels },
    interactions: interactions.map((i, n) => ({ ...i, seq: n + 1 }) as Interaction),
  }));
