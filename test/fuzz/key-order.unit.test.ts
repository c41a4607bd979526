import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Cassette, SseItem } from '../../src/cassette/index.js';
import { firstEvent, itemType, type Pack, terminal } from '../../src/contracts/index.js';
import {
  applyVariation,
  FuzzError,
  keysOf,
  type Variation,
  type VariationSpace,
  variationArbitrary,
  variationSpace,
} from '../../src/fuzz/index.js';
import { committedCassettes } from './committed.js';

const nat = fc.nat({ max: 4096 });
/** Variations made of moves alone: the events stay the same, only their order can change. */
const movesOnly: fc.Arbitrary<Variation> = fc.record({
  edits: fc.array(fc.record({ op: fc.constant('move' as const), stream: nat, event: nat, to: nat }), { minLength: 1, maxLength: 12 }),
  transport: fc.constant({ eol: 'lf' as const, cuts: [] as Variation['transport']['cuts'] }),
});

/** Per stream, per (type, key value): the data of its events in order. What a reader rebuilds a message from. */
function keyedOrders(cassette: Cassette): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const i of cassette.interactions)
    for (const e of i.response?.stream?.events ?? [])
      for (const key of keysOf(e)) {
        const group = `${i.seq} ${itemType(e)} ${key}`;
        out.set(group, [...(out.get(group) ?? []), `${e.event ?? ''}\n${e.data ?? ''}`]);
      }
  return out;
}

/** The groups whose order a variation changed. */
function reordered(space: VariationSpace, v: Variation): string[] {
  const before = keyedOrders(space.base);
  const after = keyedOrders(applyVariation(space, v).cassette);
  return [...before].filter(([group, list]) => JSON.stringify(after.get(group)) !== JSON.stringify(list)).map(([group]) => group);
}

const ev = (type: string, data: Record<string, unknown>, after: number, at: number): SseItem => ({
  at,
  after,
  data: JSON.stringify({ type, ...data }),
});

/** An AG-UI run: a message streamed in three deltas and another in two, all released by the one POST. */
function agUiRun(): Cassette {
  const events = [
    ev('RUN_STARTED', { threadId: 't1', runId: 'r1' }, 1, 0),
    ev('TEXT_MESSAGE_START', { messageId: 'm1', role: 'assistant' }, 1, 1),
    ev('TEXT_MESSAGE_CONTENT', { messageId: 'm1', delta: 'Say ' }, 1, 2),
    ev('TEXT_MESSAGE_CONTENT', { messageId: 'm1', delta: 'h' }, 1, 3),
    ev('TEXT_MESSAGE_CONTENT', { messageId: 'm1', delta: 'ello' }, 1, 4),
    ev('TEXT_MESSAGE_END', { messageId: 'm1' }, 1, 5),
    ev('TEXT_MESSAGE_CONTENT', { messageId: 'm2', delta: 'Bye' }, 1, 6),
    ev('TEXT_MESSAGE_CONTENT', { messageId: 'm2', delta: ' now' }, 1, 7),
    ev('RUN_FINISHED', { threadId: 't1', runId: 'r1' }, 1, 8),
  ];
  return {
    version: 1,
    meta: { recorder: 't', target: 'http://agent.test', recordedAt: 'now' },
    interactions: [
      {
        seq: 1,
        request: { method: 'POST', path: '/agent', headers: {}, body: { json: { threadId: 't1' } } },
        response: { status: 200, headers: { 'content-type': 'text/event-stream' }, stream: { end: 'server-closed', events } },
        timing: { start: 0 },
      },
    ],
  };
}

// A pack that says nothing of text: no rule keeps the deltas in order, so only the fuzzer's default can.
const loosePack = (reorderable?: string[]): Pack => ({
  name: 'loose',
  description: 'first and last event only',
  turnStarts: [],
  payloads: {},
  rules: [
    firstEvent('RUN_STARTED', { name: 'starts', description: 'd', source: 's', scope: 'stream' }),
    terminal(['RUN_FINISHED'], { trailers: [] }, { name: 'ends', description: 'd', source: 's', scope: 'stream' }),
  ],
  ...(reorderable ? { reorderable } : {}),
});

describe("fuzz keeps the order a stream's text depends on", () => {
  it("reads a message, item, call or index key from the event's data, not from free text", () => {
    const keys = (data: unknown) => [...keysOf({ at: 0, after: 0, data: JSON.stringify(data) })].sort();
    expect(keys({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'id=7' })).toEqual(['messageId=m1']);
    expect(keys({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, delta: 'x' })).toEqual([
      'item_id=msg_1',
      'output_index=0',
    ]);
    expect(keys({ type: 'message.part.updated', properties: { part: { messageID: 'msg_9', text: 'x' } } })).toEqual([
      'properties.part.messageID=msg_9',
    ]);
    expect(keys({ text: 'no key here', identity: 'x', video: 'y' })).toEqual([]);
  });

  it('never moves a delta past another of the same message, though the pack allows it; listed as reorderable, it does', () => {
    const run = agUiRun();
    const strict = variationSpace(run, 'run', { packs: [loosePack()] });
    fc.assert(
      fc.property(movesOnly, (v) => reordered(strict, v).length === 0),
      { numRuns: 300 },
    );
    // The same generator, once the pack says the type's order is free, reorders a message's deltas: the default is what held.
    const free = variationSpace(run, 'run', { packs: [loosePack(['TEXT_MESSAGE_CONTENT'])] });
    const found = fc.check(
      fc.property(movesOnly, (v) => reordered(free, v).length === 0),
      { numRuns: 300 },
    );
    expect(found.failed).toBe(true);
  });

  let spaces: VariationSpace[] = [];
  beforeAll(async () => {
    spaces = [];
    for (const { file, cassette } of await committedCassettes()) {
      try {
        spaces.push(variationSpace(cassette, file));
      } catch (err) {
        if (!(err instanceof FuzzError)) throw err;
      }
    }
  });

  it('no generated variation of a committed cassette reorders events of one type and key', () => {
    expect(spaces.length).toBeGreaterThan(80);
    let moved = 0;
    for (const space of spaces)
      fc.assert(
        fc.property(variationArbitrary(space), (v) => {
          moved += applyVariation(space, v).applied.filter((a) => a.startsWith('moved ')).length;
          // Moves only, for the check: inserts and deletes of optional events change a group's members, not its order.
          const moves = { ...v, edits: v.edits.filter((e) => e.op === 'move') };
          expect(reordered(space, moves)).toEqual([]);
        }),
        { numRuns: 25 },
      );
    // Events of different types or keys still move.
    expect(moved).toBeGreaterThan(spaces.length);
  });
});
