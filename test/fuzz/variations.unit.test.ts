import { relative } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Cassette, SseItem } from '../../src/cassette/index.js';
import { isCassetteFile, listFiles } from '../../src/fs/list-files.js';
import {
  applyVariation,
  FuzzError,
  transportReframing,
  type Variation,
  type VariationSpace,
  variationArbitrary,
  variationSpace,
  violationsOf,
} from '../../src/fuzz/index.js';
import { type SseFrame, SseParser, serializeSseFrame } from '../../src/sse/index.js';
import { CASSETTES, committedCassettes } from './committed.js';

const spaces: VariationSpace[] = [];
/** Committed cassettes no pack fits, so nothing would say which variations are legal: there must be none. */
const packless: string[] = [];
beforeAll(async () => {
  for (const { file, cassette } of await committedCassettes()) {
    try {
      spaces.push(variationSpace(cassette, file));
    } catch (err) {
      if (!(err instanceof FuzzError)) throw err;
      packless.push(relative(CASSETTES, file));
    }
  }
});

const eventsOf = (c: Cassette) => c.interactions.flatMap((i) => (i.response?.stream ? [i.response.stream.events] : []));
const RUNS_PER_CASSETTE = 40;

describe('variation generators', () => {
  it('every generated variation of every committed cassette passes its packs', async () => {
    // Every committed cassette, whatever their number: the files under cassettes/ are counted independently.
    expect(packless).toEqual([]);
    expect(spaces.length + packless.length).toBe((await listFiles('cassettes', isCassetteFile)).length);
    expect(spaces.length).toBeGreaterThan(80);
    let applied = 0;
    for (const space of spaces) {
      fc.assert(
        fc.property(variationArbitrary(space), (v) => {
          const varied = applyVariation(space, v);
          applied += varied.applied.length;
          expect(violationsOf(varied.cassette, space)).toEqual([]);
        }),
        { numRuns: RUNS_PER_CASSETTE },
      );
    }
    // The guard keeps edits that stay legal, not nothing: most runs change something.
    expect(applied).toBeGreaterThan(spaces.length * RUNS_PER_CASSETTE);
  });

  it('without the legality guard the same generator yields illegal streams, and the check above catches them', () => {
    const space = spaces.find((s) => s.name.endsWith('policy_deny.yaml')) as VariationSpace;
    const legal = fc.property(
      variationArbitrary(space),
      (v) => violationsOf(applyVariation(space, v, { unchecked: true }).cassette, space).length === 0,
    );
    expect(() => fc.assert(legal, { numRuns: 200, seed: 1130 })).toThrow(/Property failed/);
  });

  it('keeps causality: events stay among those their request released, recorded times stay in order', () => {
    for (const space of spaces) {
      fc.assert(
        fc.property(variationArbitrary(space), (v) => {
          const before = eventsOf(space.base).map((events) => events.map((e) => e.after));
          const after = eventsOf(applyVariation(space, v).cassette);
          after.forEach((events, s) => {
            for (let i = 1; i < events.length; i++) {
              expect((events[i] as SseItem).after).toBeGreaterThanOrEqual((events[i - 1] as SseItem).after);
              expect((events[i] as SseItem).at).toBeGreaterThanOrEqual((events[i - 1] as SseItem).at);
            }
            // Nothing is released by a request that did not release something before.
            const known = new Set(before[s]);
            for (const e of events) expect(known.has(e.after)).toBe(true);
          });
        }),
        { numRuns: 10, seed: 7 },
      );
    }
  });

  it('never adds or removes the event types a property observes', () => {
    const base = spaces.find((s) => s.name.includes('claude-native') && s.name.endsWith('streaming.yaml')) as VariationSpace;
    const space = variationSpace(base.base, base.name, { keep: ['response.output_text.delta'] });
    const deltas = (c: Cassette) =>
      eventsOf(c)
        .flat()
        .filter((e) => e.event === 'response.output_text.delta').length;
    const recorded = deltas(space.base);
    expect(recorded).toBeGreaterThan(1);
    fc.assert(
      fc.property(variationArbitrary(space), (v) => deltas(applyVariation(space, v).cassette) === recorded),
      { numRuns: 300, seed: 3 },
    );
  });

  it('reaches every kind of edit: moves, inserts, deletes, collapses and payload changes', () => {
    const seen = new Set<string>();
    for (const space of spaces)
      for (const v of fc.sample(variationArbitrary(space), { numRuns: 20, seed: 5 }))
        for (const a of applyVariation(space, v).applied)
          seen.add(a.split(' ')[0] === 'deleted' && a.includes(' all ') ? 'collapsed' : (a.split(' ')[0] as string));
    expect([...seen].filter((k) => ['moved', 'inserted', 'deleted', 'collapsed'].includes(k)).sort()).toEqual([
      'collapsed',
      'deleted',
      'inserted',
      'moved',
    ]);
    expect([...seen].some((k) => k.startsWith('session.') || k.startsWith('response.'))).toBe(true); // payload edits name the event
  });

  it('varies how a message is written, never what it says: no true flag or defaulted field dropped (isError, content)', () => {
    const mcp = spaces.filter((s) => /mcp[^/]*\/tool_(call|error)\.yaml$/.test(s.name));
    expect(mcp.length).toBeGreaterThanOrEqual(6);
    const edits = (kind: string) =>
      mcp
        .filter((space) => space.name.endsWith(`${kind}.yaml`))
        .flatMap((space) => fc.sample(variationArbitrary(space), { numRuns: 300 }).flatMap((v) => applyVariation(space, v).applied))
        .filter((a) => a.includes(' result.'));
    const [calls, errors] = [edits('tool_call'), edits('tool_error')];
    // Result edits do happen, `isError: false` left out among them (it reads the same) ...
    expect(calls.some((a) => a.includes('dropped result.isError'))).toBe(true);
    expect(errors.length).toBeGreaterThan(20);
    // ... but none a reader takes for another answer: `isError: true` left out is a success, `content` left out is [].
    expect(errors.filter((a) => a.includes('dropped result.isError'))).toEqual([]);
    expect([...calls, ...errors].filter((a) => a.includes('dropped result.content '))).toEqual([]);
  });
});

async function* piecesOf(bytes: Buffer[]): AsyncGenerator<Buffer> {
  for (const b of bytes) yield b;
}

function serialize(events: readonly SseItem[]): Buffer {
  return Buffer.from(
    events
      .map(({ at: _a, after: _b, comment, ...f }) =>
        comment !== undefined && f.event === undefined && f.data === undefined
          ? serializeSseFrame({ kind: 'comment', comment })
          : serializeSseFrame({ kind: 'event', ...f }),
      )
      .join(''),
  );
}

describe('transport variations', () => {
  it('change only how bytes travel: every transport parses back to the same events', async () => {
    const space = spaces.find((s) => s.name.includes('codex-native') && s.name.endsWith('policy_ask.yaml')) as VariationSpace;
    let cuts = 0;
    await fc.assert(
      fc.asyncProperty(variationArbitrary(space, { maxCuts: 12 }), async (v: Variation) => {
        const varied = applyVariation(space, v).cassette;
        const { reframe, log } = transportReframing(varied, space.streams, v.transport);
        for (const n of space.streams) {
          const interaction = varied.interactions[n];
          const events = interaction?.response?.stream?.events ?? [];
          const whole = serialize(events);
          const parser = new SseParser();
          const frames: SseFrame[] = [];
          const pieces: Buffer[] = [];
          for await (const piece of reframe(piecesOf([whole]), { cassette: 'x', seq: interaction?.seq ?? 0 })) {
            pieces.push(piece);
            frames.push(...parser.push(piece));
          }
          frames.push(...parser.end());
          expect(frames).toEqual(new SseParser().push(whole));
          if (v.transport.eol === 'crlf') expect(Buffer.concat(pieces).toString()).toContain('\r\n');
        }
        cuts += log.length;
      }),
      { numRuns: 150, seed: 17 },
    );
    expect(cuts).toBeGreaterThan(100);
  });

  it('can cut between CR and LF and inside a multi-byte UTF-8 character', async () => {
    const text = Buffer.from('event: a\ndata: {"x":"fuzz ✓ ü"}\n\n');
    const space = spaces[0] as VariationSpace;
    const cassette: Cassette = {
      ...space.base,
      interactions: [
        {
          ...(space.base.interactions[0] as Cassette['interactions'][number]),
          seq: 1,
          response: {
            status: 200,
            headers: {},
            stream: { events: [{ at: 0, after: 0, event: 'a', data: '{"x":"fuzz ✓ ü"}' }], end: 'server-closed' },
          },
        },
      ],
    };
    for (const [kind, eol, check] of [
      ['line-end', 'crlf', (a: Buffer) => a.at(-1) === 13],
      ['utf8', 'lf', (a: Buffer) => (a.at(-1) as number) >= 0xc0 || ((a.at(-1) as number) & 0xc0) === 0x80],
    ] as const) {
      const { reframe, log } = transportReframing(cassette, [0], { eol, cuts: [{ stream: 0, kind, at: 1 }] });
      const pieces: Buffer[] = [];
      for await (const p of reframe(piecesOf([text]), { cassette: 'x', seq: 1 })) pieces.push(p);
      expect(pieces.length).toBe(2);
      expect(check(pieces[0] as Buffer)).toBe(true);
      expect(log[0]).toMatch(kind === 'utf8' ? /inside a UTF-8 character/ : /between CR and LF/);
      const parser = new SseParser();
      expect([...parser.push(pieces[0] as Buffer), ...parser.push(pieces[1] as Buffer)]).toEqual([
        { kind: 'event', event: 'a', data: '{"x":"fuzz ✓ ü"}' },
      ]);
    }
  });
});
