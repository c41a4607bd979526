import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { serializeCassette } from '../../src/cassette/index.js';
import { runBench } from '../helpers/cli.js';

const valid = serializeCassette({
  version: 1,
  meta: {
    recorder: 'tapedeck test',
    target: 'http://127.0.0.1:6767',
    recordedAt: '2026-01-01T00:00:00.000Z',
    labels: { harness: 'kiro-native' },
  },
  interactions: [
    {
      seq: 1,
      request: { method: 'GET', path: '/health', headers: {} },
      response: { status: 200, headers: {}, body: { json: { status: 'ok' } } },
      timing: { start: 0, headers: 1, end: 1.5 },
    },
    {
      seq: 2,
      request: { method: 'GET', path: '/v1/sessions/a/stream', headers: {} },
      response: {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        stream: {
          end: 'server-closed',
          events: [
            { at: 2, after: 1, event: 'session.heartbeat', data: '{}' },
            { at: 3, after: 3, event: 'response.output_text.delta', data: '{"delta":"a"}' },
            { at: 4, after: 3, event: 'response.output_text.delta', data: '{"delta":"b"}' },
            { at: 5, after: 3, data: '[DONE]' },
          ],
        },
      },
      timing: { start: 2, headers: 2, end: 5 },
    },
    {
      seq: 3,
      request: { method: 'POST', path: '/v1/sessions/a/events', headers: {} },
      failure: { code: 'upstream_reset', message: 'socket hang up' },
      timing: { start: 2.5, end: 3 },
    },
  ],
});

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tapedeck-inspect-'));
  const files: Record<string, string> = {
    'valid.yaml': valid,
    'bad-yaml.yaml': 'version: 1\nmeta: {recorder: "x"\ninteractions: []\n',
    'no-version.yaml': valid.replace('version: 1\n', ''),
    'wrong-type.yaml': valid.replace('status: 200', 'status: "two hundred"'),
    'unknown-version.yaml': valid.replace('version: 1', 'version: 7'),
    'truncated.yaml': valid.slice(0, valid.indexOf('    response:', valid.indexOf('seq: 2'))),
  };
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
});

describe('bench inspect', () => {
  it('prints one line per interaction, streams with their event types in order', async () => {
    const r = await runBench(['inspect', 'valid.yaml'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatchInlineSnapshot(`
      "valid.yaml: 3 interactions from http://127.0.0.1:6767, recorded 2026-01-01T00:00:00.000Z by tapedeck test; harness=kiro-native
      #1 GET /health → 200 1.5 ms
      #2 GET /v1/sessions/a/stream → 200 3.0 ms sse 4 events, server-closed: session.heartbeat, response.output_text.delta×2, [DONE]
      #3 POST /v1/sessions/a/events → failed (upstream_reset) 0.5 ms
      "
    `);
  });

  it.each([
    ['bad-yaml.yaml', 'bench: bad-yaml.yaml:3 invalid YAML: Flow map in block collection must be sufficiently indented and end with a }'],
    ['no-version.yaml', 'bench: no-version.yaml:1 version: missing; expected 1. Is this a tapedeck cassette?'],
    ['wrong-type.yaml', 'bench: wrong-type.yaml:16 interactions[0].response.status: expected number, received string'],
    ['unknown-version.yaml', 'bench: unknown-version.yaml:2 version: unknown cassette version 7; this tapedeck reads version 1'],
    ['truncated.yaml', 'bench: truncated.yaml:21 interactions[1].timing: missing; expected object'],
    ['missing.yaml', 'bench: missing.yaml cannot be read: no such file'],
  ])('refuses %s with one line naming file, line and field, and exit 2', async (file, message) => {
    const r = await runBench(['inspect', file], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`${message}\n`);
  });
});

describe('bench inspect on YAML that only fails when resolved', () => {
  it('reports an unknown alias as invalid YAML in one line', async () => {
    await writeFile(join(dir, 'alias.yaml'), valid.replace('recorder: "tapedeck test"', 'recorder: *nowhere'));
    const r = await runBench(['inspect', 'alias.yaml'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bench: alias\.yaml invalid YAML: .*nowhere.*\n$/);
  });
});
