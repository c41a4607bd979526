import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Cassette,
  type Interaction,
  interactionPreparer,
  type PreparedInteraction,
  portablePass,
  writeCassetteStream,
} from '../../src/cassette/index.js';
import { cassetteArb } from './arbitraries.js';

const folders = { workspace: '/work/app', home: '/home/dev', tmp: '/tmp', host: 'vm' };

/** Some interactions carry a credential in a header that others only echo in their bodies, so a secret can be learnt after an echo was prepared. */
const withLateSecrets = fc
  .tuple(cassetteArb, fc.array(fc.nat(), { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 6 }))
  .map(([c, carriers, echoes]): Cassette => {
    const n = c.interactions.length;
    const token = (k: number) => `tok${k}Q7x9Zp2LmW4rT8vY`;
    return {
      ...c,
      interactions: c.interactions.map((i, k) => {
        let out: Interaction = i;
        if (carriers.some((m) => n > 0 && m % n === k))
          out = { ...out, request: { ...out.request, headers: { ...out.request.headers, authorization: `Bearer ${token(k % 2)}` } } };
        if (echoes.some((m) => n > 0 && m % n === k))
          out = { ...out, request: { ...out.request, body: { text: `see ${token((k + 1) % 2)} at /work/app/x` } } };
        return out;
      }),
    };
  });

describe('a save prepared while recording', () => {
  it('writes the very bytes of a plain save, whatever order the interactions settled in and whichever were prepared', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-prepared-'));
    await fc.assert(
      fc.asyncProperty(withLateSecrets, fc.infiniteStream(fc.boolean()), fc.nat(), async (cassette, coins, shift) => {
        const plain = join(dir, 'plain.yaml');
        const ahead = join(dir, 'ahead.yaml');
        await writeCassetteStream(plain, cassette.meta, () => cassette.interactions, undefined, portablePass(folders));

        // Settled in a rotated order (a long stream ends after the requests behind it), some never prepared.
        const prepare = interactionPreparer(undefined, portablePass(folders));
        const n = cassette.interactions.length;
        const order = cassette.interactions.map((_, k) => (k + shift) % Math.max(n, 1));
        const ready = new Map<number, PreparedInteraction>();
        const flips = coins[Symbol.iterator]();
        for (const k of order) {
          const i = cassette.interactions[k] as Interaction;
          if (flips.next().value)
            ready.set(
              k,
              prepare(() => i),
            );
        }
        await writeCassetteStream(
          ahead,
          cassette.meta,
          () => cassette.interactions.map((i, k) => ready.get(k) ?? i),
          undefined,
          portablePass(folders),
        );
        const text = await readFile(ahead, 'utf8');
        expect(text).toBe(await readFile(plain, 'utf8'));
        // A token some request carried as a credential is nowhere, however early its echo was prepared.
        for (const i of cassette.interactions) {
          const carried = /Bearer (tok\d\w+)/.exec(String(i.request.headers.authorization ?? ''))?.[1];
          if (carried) expect(text).not.toContain(carried);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('writes a prepared text as it is while its scrub list holds, and renders afresh once a later secret changes it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-prepared-'));
    const file = join(dir, 'c.yaml');
    const meta = { recorder: 't', target: 'http://127.0.0.1:1', recordedAt: 'now' };
    const echo: Interaction = {
      seq: 1,
      request: { method: 'POST', path: '/echo', headers: {}, body: { text: 'the word is Zq81mXv03LpT' } },
      response: { status: 204, headers: {} },
      timing: { start: 0 },
    };
    const carrier: Interaction = {
      seq: 2,
      request: { method: 'GET', path: '/me', headers: { authorization: 'Bearer Zq81mXv03LpT' } },
      response: { status: 204, headers: {} },
      timing: { start: 1 },
    };
    const prepare = interactionPreparer();
    const early = prepare(() => echo);
    // A marked copy of the prepared text shows whether the save wrote it or rendered the interaction again.
    const marked = (p: PreparedInteraction) => ({ ...p, text: p.text.replace('/echo', '/echo-as-prepared') });
    await writeCassetteStream(file, meta, () => [marked(early)]);
    expect(await readFile(file, 'utf8')).toContain('/echo-as-prepared');

    await writeCassetteStream(file, meta, () => [marked(early), carrier]);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('/echo-as-prepared');
    expect(text).not.toContain('Zq81mXv03LpT');
    expect(text).toContain('the word is <redacted:authorization>');
  });

  it('renders afresh a prepared text whose secret spelling a later secret renamed, and matches a plain save', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-prepared-'));
    // Nine bytes: its base64 (no padding) is one of its own spellings, and then a secret of its own under another name.
    const token = 'Zq81mXv03';
    const encoded = Buffer.from(token).toString('base64');
    const meta = { recorder: 'test', target: 'http://127.0.0.1:9', recordedAt: '2026-01-01T00:00:00.000Z' };
    const first: Interaction = {
      seq: 1,
      request: { method: 'POST', path: '/a', headers: { authorization: `Bearer ${token}` }, body: { text: `echo ${encoded}` } },
      response: { status: 200, headers: {}, body: { text: 'ok' } },
      timing: { start: 0 },
    };
    const second: Interaction = {
      seq: 2,
      request: { method: 'GET', path: '/b', headers: { 'x-api-key': encoded } },
      response: { status: 200, headers: {}, body: { text: 'ok' } },
      timing: { start: 1 },
    };
    const plain = join(dir, 'plain.yaml');
    const ahead = join(dir, 'ahead.yaml');
    await writeCassetteStream(plain, meta, () => [first, second]);
    const prepare = interactionPreparer();
    const early = prepare(() => first);
    expect(early.text).toContain('<redacted:authorization>');
    await writeCassetteStream(ahead, meta, () => [early, second]);
    const text = await readFile(ahead, 'utf8');
    expect(text).toBe(await readFile(plain, 'utf8'));
    expect(text).toContain(`echo <redacted:x-api-key>`);
  });

  it('holds one scrub list for all its texts, letting go of each as soon as a later secret supersedes it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tapedeck-prepared-'));
    const meta = { recorder: 'test', target: 'http://127.0.0.1:9', recordedAt: '2026-01-01T00:00:00.000Z' };
    // Each answer carries a fresh credential, as signed URLs and session tokens do.
    const exchange = (seq: number): Interaction => ({
      seq,
      request: { method: 'GET', path: `/v1/items/${seq}`, headers: { authorization: `Bearer tok${seq}Q7x9Zp2LmW4rT8vY` } },
      response: { status: 200, headers: {}, body: { json: { id: seq } } },
      timing: { start: seq },
    });
    const interactions = Array.from({ length: 40 }, (_, k) => exchange(k + 1));
    const prepare = interactionPreparer();
    const ready = interactions.map((i) => prepare(() => i));
    // Only the latest text's list is still held; every earlier one was let go when the next secret came.
    expect(ready.filter((p) => p.scrubbedWith.list !== undefined)).toEqual([ready.at(-1)]);
    const plain = join(dir, 'plain.yaml');
    const ahead = join(dir, 'ahead.yaml');
    await writeCassetteStream(plain, meta, () => interactions);
    await writeCassetteStream(ahead, meta, () => ready);
    expect(await readFile(ahead, 'utf8')).toBe(await readFile(plain, 'utf8'));
  });
});
