import type { Cassette, SseItem } from '../cassette/index.js';
import type { EntryInfo, ReplayOptions } from '../replayer/index.js';
import { serializeSseFrame } from '../sse/index.js';
import { labelOf } from './labels.js';
import type { Cut, Transport } from './variation.js';

const LF = 10;
const CR = 13;
const EOL = { lf: '\n', crlf: '\r\n', cr: '\r' } as const;

/** The byte a line-end cut goes before: the LF of an LF or CRLF ending (inside CRLF), or the CR of a bare CR. */
const lineEndByte = (eol: Transport['eol']) => (eol === 'cr' ? CR : LF);
const isContinuation = (b: number) => (b & 0xc0) === 0x80;

function withEol(chunk: Buffer, eol: Transport['eol']): Buffer {
  if (eol === 'lf') return chunk;
  // Serialized SSE holds no raw newline but line endings: every LF is one.
  return Buffer.from(chunk.toString('latin1').replaceAll('\n', EOL[eol]), 'latin1');
}

function serialized(events: readonly SseItem[], eol: Transport['eol']): Buffer {
  let text = '';
  for (const { at: _at, after: _after, comment, raw: _raw, ...fields } of events)
    text +=
      comment !== undefined && fields.event === undefined && fields.data === undefined
        ? serializeSseFrame({ kind: 'comment', comment })
        : serializeSseFrame({ kind: 'event', ...fields });
  return withEol(Buffer.from(text), eol);
}

/** A cut resolved against the stream's bytes: a byte offset, or the k-th line end or continuation byte. */
type Target = { kind: 'any'; offset: number } | { kind: 'line-end' | 'utf8'; ordinal: number };

function resolve(cut: Cut, bytes: Buffer, eol: Transport['eol']): Target | undefined {
  if (cut.kind === 'any') return bytes.length < 2 ? undefined : { kind: 'any', offset: 1 + (cut.at % (bytes.length - 1)) };
  const want = cut.kind === 'line-end' ? (b: number) => b === lineEndByte(eol) : isContinuation;
  let count = 0;
  for (const b of bytes) if (want(b)) count++;
  return count === 0 ? undefined : { kind: cut.kind, ordinal: cut.at % count };
}

export interface Reframing {
  reframe: NonNullable<ReplayOptions['reframe']>;
  /** The cuts actually made, in words, for reports. */
  log: string[];
  /** Seqs of the streams that were cut. */
  cut: Set<number>;
}

/**
 * Replays each stream with the transport's line endings and extra chunk
 * boundaries. Cuts are placed by ordinal (the k-th line end, the k-th byte
 * inside a character) so they land where meant even when the client's own
 * folders make restored data longer than recorded.
 */
export function transportReframing(cassette: Cassette, streamIndices: readonly number[], transport: Transport): Reframing {
  const log: string[] = [];
  const cut = new Set<number>();
  const targets = new Map<number, Target[]>();
  for (const cut of transport.cuts) {
    const interaction = cassette.interactions[streamIndices[cut.stream % streamIndices.length] ?? -1];
    const events = interaction?.response?.stream?.events;
    if (!interaction || !events) continue;
    const target = resolve(cut, serialized(events, transport.eol), transport.eol);
    if (target) targets.set(interaction.seq, [...(targets.get(interaction.seq) ?? []), target]);
  }
  async function* reframe(frames: AsyncGenerator<Buffer>, stream: EntryInfo): AsyncGenerator<Buffer> {
    const mine = targets.get(stream.seq) ?? [];
    const offsets = new Set(mine.flatMap((t) => (t.kind === 'any' ? [t.offset] : [])));
    const lineEnds = new Set(mine.flatMap((t) => (t.kind === 'line-end' ? [t.ordinal] : [])));
    const inChar = new Set(mine.flatMap((t) => (t.kind === 'utf8' ? [t.ordinal] : [])));
    const endByte = lineEndByte(transport.eol);
    const items = cassette.interactions.find((i) => i.seq === stream.seq)?.response?.stream?.events ?? [];
    let offset = 0;
    let lineEnd = 0;
    let continuation = 0;
    // Which recorded item a byte belongs to: a blank line (a line end right after one) ends each frame.
    let item = 0;
    let lineStart = true;
    let afterCr = false;
    for await (const raw of frames) {
      const chunk = withEol(raw, transport.eol);
      if (mine.length === 0) {
        yield chunk;
        continue;
      }
      let from = 0;
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i] as number;
        let where: string | undefined;
        if (offsets.has(offset + i)) where = 'at';
        if (b === endByte && lineEnds.has(lineEnd++)) where = transport.eol === 'crlf' ? 'between CR and LF at' : 'before a line end at';
        if (isContinuation(b) && inChar.has(continuation++)) where = 'inside a UTF-8 character at';
        if (where && i > from) {
          const inside = items[item];
          log.push(
            `cut the stream of seq ${stream.seq} ${where} byte ${offset + i}${inside ? `, inside #${item} ${labelOf(inside)}` : ''}`,
          );
          cut.add(stream.seq);
          yield chunk.subarray(from, i);
          // A cut is two network reads: let the client take the first piece before the next arrives.
          await new Promise(setImmediate);
          from = i;
        }
        // Counted after the cut: a cut before the blank line is still inside the frame it ends.
        const crlfTail = b === LF && afterCr;
        if ((b === CR || b === LF) && !crlfTail && lineStart) item++;
        lineStart = b === CR || b === LF;
        afterCr = b === CR;
      }
      offset += chunk.length;
      yield chunk.subarray(from);
    }
  }
  return { reframe, log, cut };
}
