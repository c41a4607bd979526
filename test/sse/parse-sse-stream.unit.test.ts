import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSseText, type SseFrame, SseParser, serializeSseFrame } from '../../src/sse/index.js';

const lineText = fc.string({ unit: 'grapheme' }).filter((s) => !/[\r\n]/.test(s));
const frameArb: fc.Arbitrary<SseFrame> = fc.oneof(
  fc.record({ kind: fc.constant('comment' as const), comment: lineText }),
  fc
    .record(
      {
        kind: fc.constant('event' as const),
        event: lineText,
        data: fc.array(lineText, { minLength: 1, maxLength: 3 }).map((l) => l.join('\n')),
        id: lineText.filter((s) => !s.includes('\u0000')),
        retry: fc.nat(),
      },
      { requiredKeys: ['kind', 'data'] },
    )
    .map((f) => f as SseFrame),
);

function parseInChunks(bytes: Uint8Array, cuts: number[], parser = new SseParser()): SseFrame[] {
  const frames: SseFrame[] = [];
  let prev = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    frames.push(...parser.push(bytes.subarray(prev, cut)));
    prev = cut;
  }
  frames.push(...parser.push(bytes.subarray(prev)), ...parser.end());
  return frames;
}

describe('SseParser', () => {
  it('parses fields, multi-line data, comments, id and retry', () => {
    const text = ': hello\nevent: a\ndata: one\ndata:two\nid: 7\nretry: 300\n\ndata: x\n\n';
    expect(parseSseText(text)).toEqual([
      { kind: 'comment', comment: ' hello' },
      { kind: 'event', event: 'a', data: 'one\ntwo', id: '7', retry: 300 },
      { kind: 'event', data: 'x' },
    ]);
  });

  it('accepts CR, LF and CRLF line endings alike', () => {
    const expected = parseSseText('event: a\ndata: 1\n\n');
    expect(parseSseText('event: a\r\ndata: 1\r\n\r\n')).toEqual(expected);
    expect(parseSseText('event: a\rdata: 1\r\r')).toEqual(expected);
  });

  it('drops a block that never got its blank line, as browsers do', () => {
    const parser = new SseParser();
    expect(parser.push('data: done\n\ndata: cut')).toEqual([{ kind: 'event', data: 'done' }]);
    expect(parser.pending).toBe(true);
    expect(parser.end()).toEqual([]);
  });

  it('gives the same frames however the bytes are split, even inside a character or a CRLF', () => {
    fc.assert(
      fc.property(fc.array(frameArb, { maxLength: 8 }), fc.boolean(), fc.array(fc.nat(), { maxLength: 12 }), (frames, crlf, rawCuts) => {
        let text = frames.map(serializeSseFrame).join('');
        if (crlf) text = text.replaceAll('\n', '\r\n');
        const bytes = new TextEncoder().encode(text);
        const cuts = rawCuts.map((c) => (bytes.length === 0 ? 0 : c % (bytes.length + 1)));
        expect(parseInChunks(bytes, cuts)).toEqual(parseSseText(text));
      }),
      { numRuns: 300 },
    );
  });

  it('parses what it serialises back to the same frames', () => {
    fc.assert(
      fc.property(fc.array(frameArb, { maxLength: 8 }), (frames) => {
        expect(parseSseText(frames.map(serializeSseFrame).join(''))).toEqual(frames);
      }),
      { numRuns: 300 },
    );
  });
});

describe('SseParser on the committed streams', () => {
  it('10,000 random splits of the committed streams, in LF, CRLF and CR, give identical parsed events', async () => {
    const { committedCassettes } = await import('../fuzz/committed.js');
    const streams: Buffer[] = [];
    for (const { cassette } of await committedCassettes())
      for (const i of cassette.interactions) {
        const events = i.response?.stream?.events;
        if (!events) continue;
        const text = events.map(({ at: _a, after: _b, comment: _c, ...f }) => serializeSseFrame({ kind: 'event', ...f })).join('');
        streams.push(Buffer.from(text), Buffer.from(text.replaceAll('\n', '\r\n')), Buffer.from(text.replaceAll('\n', '\r')));
      }
    const expected = streams.map((s) => parseInChunks(s, []));
    expect(expected[0]?.length).toBeGreaterThan(0);
    const arb = fc
      .nat({ max: streams.length - 1 })
      .chain((n) =>
        fc.tuple(fc.constant(n), fc.uniqueArray(fc.integer({ min: 1, max: (streams[n] as Buffer).length - 1 }), { maxLength: 40 })),
      );
    fc.assert(
      fc.property(arb, ([n, cuts]) => {
        expect(parseInChunks(streams[n] as Buffer, cuts)).toEqual(expected[n]);
      }),
      { numRuns: 10_000, seed: 42 },
    );
  });
});

describe('SseParser on one large event', () => {
  /** Parse time of one event whose data line is `mb` megabytes, fed in 64 KiB chunks as a socket would. */
  function parseMs(mb: number): number {
    const bytes = Buffer.from(`event: big\ndata: ${'x'.repeat(mb * 1024 * 1024)}\n\n`);
    const start = performance.now();
    const parser = new SseParser();
    let data = 0;
    for (let at = 0; at < bytes.length; at += 65536)
      for (const f of parser.push(bytes.subarray(at, at + 65536))) data += f.kind === 'event' ? (f.data?.length ?? 0) : 0;
    expect(data).toBe(mb * 1024 * 1024);
    return performance.now() - start;
  }

  it('is linear in the event size: 10x the bytes costs far less than 100x the time', () => {
    parseMs(2);
    const small = Math.min(parseMs(4), parseMs(4));
    const large = Math.min(parseMs(40), parseMs(40));
    // Quadratic parsing made this about 30x; linear is about 10x. The bound leaves room for a loaded machine.
    expect(large / Math.max(small, 1)).toBeLessThan(30);
  }, 60_000);
});

describe('SseParser keeping the wire text (raw)', () => {
  const eol = fc.constantFrom('\n', '\r\n', '\r');
  const fieldLine = fc.oneof(
    fc
      .tuple(fc.constantFrom('event', 'data', 'id', 'retry', 'unknown'), fc.constantFrom(':', ': ', ':  '), lineText)
      .map(([f, c, v]) => `${f}${c}${v.replace(/\r|\n/g, '')}`),
    lineText.map((v) => `:${v}`),
    fc.constant('data'),
  );
  const block = fc
    .tuple(fc.array(fc.tuple(fieldLine, eol), { minLength: 1, maxLength: 5 }), eol)
    .map(([lines, end]) => lines.map(([l, e]) => l + e).join('') + end);
  const stream = fc.array(block, { minLength: 1, maxLength: 6 }).map((b) => b.join(''));

  it('gives back every byte of the stream, in order, however it is cut, and the same frames as without raw', () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 8 }), (text, cutsRaw) => {
        const bytes = new TextEncoder().encode(text);
        const cuts = cutsRaw.map((c) => c % (bytes.length + 1));
        const parser = new SseParser({ raw: true });
        const frames = parseInChunks(bytes, cuts, parser);
        expect(frames.map((f) => serializeSseFrame(f)).join('') + parser.rest()).toBe(text);
        expect(frames.map(({ raw: _r, ...f }) => f)).toEqual(parseSseText(text));
      }),
      { numRuns: 1000 },
    );
  });
});
