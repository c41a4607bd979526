import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WsFrame } from '../../../src/cassette/index.js';
import { UsageError } from '../../../src/errors.js';
import { loadCodexProtocol } from '../../../src/families/codex/index.js';

const DRAFT7 = 'http://json-schema.org/draft-07/schema#';
const branch = (method: string, params: Record<string, unknown>, id = false) => ({
  type: 'object',
  required: id ? ['id', 'method', 'params'] : ['method', 'params'],
  properties: { ...(id ? { id: { type: 'integer' } } : {}), method: { enum: [method], type: 'string' }, params },
});

/** A protocol folder shaped as `generate-json-schema` writes it, with one method of each kind. */
async function protocolDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tapedeck-codex-protocol-'));
  const write = (name: string, doc: unknown) => writeFile(join(dir, name), JSON.stringify({ $schema: DRAFT7, ...(doc as object) }));
  await write('ClientRequest.json', {
    definitions: { TurnStartParams: { type: 'object', required: ['threadId'], properties: { threadId: { type: 'string' } } } },
    oneOf: [branch('turn/start', { $ref: '#/definitions/TurnStartParams' }, true)],
  });
  await write('ClientNotification.json', { oneOf: [{ type: 'object', properties: { method: { enum: ['initialized'] } } }] });
  await write('ServerNotification.json', {
    oneOf: [branch('turn/completed', { type: 'object', required: ['threadId'], properties: { threadId: { type: 'string' } } })],
  });
  await write('ServerRequest.json', { oneOf: [] });
  await mkdir(join(dir, 'v2'));
  await writeFile(
    join(dir, 'v2', 'TurnStartResponse.json'),
    JSON.stringify({ $schema: DRAFT7, type: 'object', required: ['turn'], properties: { turn: { type: 'object' } } }),
  );
  return dir;
}

const frame = (from: 'client' | 'server', json: unknown): WsFrame => ({ at: 0, from, after: 0, json }) as WsFrame;

describe('loadCodexProtocol', () => {
  it('checks requests, notifications and each result against the request it answers', async () => {
    const protocol = await loadCodexProtocol(await protocolDir());
    const good = [
      frame('client', { id: 1, method: 'turn/start', params: { threadId: 't' } }),
      frame('server', { id: 1, result: { turn: {} } }),
      frame('server', { method: 'turn/completed', params: { threadId: 't' }, emittedAtMs: 1 }),
    ];
    expect(protocol.check(good)).toEqual([]);
    const bad = [
      frame('client', { id: 1, method: 'turn/start', params: {} }),
      frame('server', { id: 1, result: { turns: [] } }),
      frame('server', { method: 'turn/finished', params: {} }),
    ];
    expect(protocol.check(bad).map((f) => [f.frame, f.from, f.what, f.issues[0]?.split(':')[0]])).toEqual([
      [0, 'client', 'turn/start', 'params.threadId'],
      [1, 'server', 'response to turn/start', 'turn'],
      [2, 'server', 'turn/finished', 'ServerNotification has no method turn/finished in this protocol'],
    ]);
  });

  it('a folder without the generated schema is a UsageError naming the command', async () => {
    const err = await loadCodexProtocol(tmpdir()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/no ClientRequest\.json; write the schema with: codex app-server generate-json-schema --out /);
  });
});
