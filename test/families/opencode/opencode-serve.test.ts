import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadCassette } from '../../../src/cassette/index.js';
import { verifyCassette } from '../../../src/contracts/index.js';
import { OPENCODE_PROBE_NAMES, opencodeFamily } from '../../../src/families/opencode/index.js';
import { type OpenCodeSimulator, startOpenCodeSimulator } from '../../../src/families/opencode/simulator/index.js';
import { counterexampleReplayOptions } from '../../../src/fuzz/index.js';
import { loadManifest } from '../../../src/manifest/index.js';
import { cassetteFetch, recordFamily } from '../../../src/probing/index.js';
import { folderWithoutTiming, tempDir } from '../omnigent/helpers.js';

const COMMITTED = join(import.meta.dirname, '..', '..', '..', 'cassettes', 'opencode-serve');
let sim: OpenCodeSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** The `type` of each /event frame of a cassette, in order. */
async function eventTypes(probe: string, folder = 'opencode-serve'): Promise<string[]> {
  const cassette = await loadCassette(join(COMMITTED, '..', folder, `${probe}.yaml`));
  const events = cassette.interactions.find((i) => i.request.path === '/event')?.response?.stream?.events ?? [];
  return events.map((e) => (JSON.parse(e.data ?? '{}') as { type: string }).type);
}

describe('bench record --target opencode', () => {
  it('records every probe as SUPPORTED, exactly as committed (seed 1), and the cassettes verify clean', async () => {
    const outDir = await tempDir('opencode');
    const manifest = await recordFamily(opencodeFamily, { outDir });
    expect(Object.fromEntries(manifest.probes.map((p) => [p.probe, p.verdict]))).toEqual(
      Object.fromEntries(OPENCODE_PROBE_NAMES.map((n) => [n, 'SUPPORTED'])),
    );
    expect(await folderWithoutTiming(join(outDir, 'opencode-serve'))).toEqual(await folderWithoutTiming(COMMITTED));
    expect((await loadManifest(join(COMMITTED, 'manifest.yaml'))).probes).toEqual(manifest.probes);
    for (const name of OPENCODE_PROBE_NAMES) {
      const checked = verifyCassette(await loadCassette(join(COMMITTED, `${name}.yaml`)), name);
      expect(checked.rules.flatMap((r) => r.violations)).toEqual([]);
    }
  });

  it.each([['opencode-serve'], ['opencode-serve-real']])(
    '%s: an aborted turn replays in the order the reference lists: error, idle, the tool and message errors, a second idle',
    async (folder) => {
      const types = await eventTypes('abort', folder);
      const tail = types.slice(types.indexOf('session.error'));
      expect(tail).toEqual([
        'session.error',
        'session.status',
        'session.idle',
        'message.part.updated',
        'message.updated',
        'session.status',
        'session.idle',
      ]);
      const cassette = await loadCassette(join(COMMITTED, '..', folder, 'abort.yaml'));
      const out = await opencodeFamily.replay(
        { harness: 'opencode-serve', probe: 'abort', file: '' },
        { fetch: cassetteFetch([{ name: 'abort', cassette }]) },
      );
      expect(out).toEqual({ replayed: 'SUPPORTED', reason: 'MessageAbortedError; the tool ended in error; 2 session.idle events' });
    },
  );

  it('a text turn opens with the user message and busy, and ends busy, idle, session.idle', async () => {
    const types = await eventTypes('text_turn');
    expect(types[0]).toBe('server.connected');
    expect(types.slice(2, 6)).toEqual(['message.updated', 'message.part.updated', 'session.updated', 'session.status']);
    // OC6: the housekeeping after the idle ends with the user message's summary.
    expect(types.slice(-6)).toEqual([
      'session.status',
      'session.status',
      'session.idle',
      'session.updated',
      'session.diff',
      'message.updated',
    ]);
  });
});

describe('the opencode serve simulator', () => {
  it('answers 204 to prompt_async, 404 NotFoundError for an unknown session, true to any abort, and 404 to a repeated permission reply', async () => {
    sim = await startOpenCodeSimulator();
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${sim?.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    expect(await (await call('GET', '/global/health')).json()).toEqual({ healthy: true, version: '1.18.33' });
    const missing = await call('GET', '/session/ses_nope');
    expect([missing.status, ((await missing.json()) as { name: string }).name]).toEqual([404, 'NotFoundError']);
    expect(await (await call('POST', '/session/ses_nope/abort')).json()).toBe(true);
    const session = (await (await call('POST', '/session', { title: 't' })).json()) as { id: string };
    expect((await call('POST', `/session/${session.id}/prompt_async`, {})).status).toBe(400);
    expect((await call('POST', `/session/${session.id}/prompt_async`, { parts: [{ type: 'text', text: 'run it' }] })).status).toBe(204);
    let pending: { id: string }[] = [];
    while (pending.length === 0) pending = (await (await call('GET', '/permission')).json()) as { id: string }[];
    expect((await call('POST', `/permission/${pending[0]?.id}/reply`, { reply: 'once' })).status).toBe(200);
    const again = await call('POST', `/permission/${pending[0]?.id}/reply`, { reply: 'once' });
    expect([again.status, ((await again.json()) as { _tag: string })._tag]).toEqual([404, 'PermissionNotFoundError']);
  });
});

describe('fuzz regressions', () => {
  it('an abort whose session.error names no session still counts for the aborted session (bench fuzz --seed 42)', async () => {
    // Found by running the README's `bench fuzz --runs 100 --seed 42`: the contract lets session.error omit
    // properties.sessionID (an error of no session in particular), and the driver only looked for its own.
    const file = join(COMMITTED, '..', 'regressions', 'opencode-serve-real.abort_text.yaml');
    const cassette = await loadCassette(file);
    const errors = cassette.interactions
      .flatMap((i) => i.response?.stream?.events ?? [])
      .filter((e) => e.event === undefined && e.data?.includes('"session.error"'));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => !Object.hasOwn((JSON.parse(e.data as string) as { properties: object }).properties, 'sessionID'))).toBe(
      true,
    );
    expect(verifyCassette(cassette, 'regression').rules.flatMap((r) => r.violations)).toEqual([]);
    const fetch = cassetteFetch([{ name: 'regression', cassette }], counterexampleReplayOptions(cassette));
    const out = await opencodeFamily.replay({ harness: 'opencode-serve-real', probe: 'abort_text', file }, { fetch });
    expect(out.replayed).toBe('SUPPORTED');
  });
});
