const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** One parsed SSE block (a dispatch) or one comment line, in stream order. */
export type SseFrame = (
  | { kind: 'event'; event?: string | undefined; data?: string | undefined; id?: string | undefined; retry?: number | undefined }
  | { kind: 'comment'; comment: string }
) & {
  /** With `{ raw: true }`: the exact text since the previous frame, when it differs from `serializeSseFrame` of this one. */
  raw?: string | undefined;
};

/**
 * An incremental Server-Sent Events parser (WHATWG rules): feed it bytes as
 * they arrive, in chunks split anywhere, even inside a UTF-8 character or a CRLF.
 */
export class SseParser {
  /** The wire text since the last frame, lines with their own endings (only with `raw`). */
  private rawText: string[] | undefined;
  /** With `raw`: a comment waiting for its next line, which says whether the comment's blank line follows. */
  private heldComment: SseFrame | undefined;

  constructor(options: { raw?: boolean } = {}) {
    if (options.raw) this.rawText = [];
  }

  /** Bytes of the unfinished line, decoded once its end arrives: a long line costs its length, not its length times its chunks. */
  private pendingLine: Buffer[] = [];
  private skipLf = false;
  private first = true;
  private event: string | undefined;
  private data: string[] | undefined;
  private id: string | undefined;
  private retry: number | undefined;

  /** Parses the next chunk; returns the frames it completed. */
  push(chunk: Uint8Array | string): SseFrame[] {
    // Line ends are ASCII and never inside a UTF-8 character, so lines are cut as bytes and decoded whole.
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.first && bytes.length > 0) {
      const held = this.pendingLine.length > 0 ? Buffer.concat([...this.pendingLine, bytes]) : bytes;
      if (held.length < 3 && BOM.subarray(0, held.length).equals(held)) {
        this.pendingLine = [held];
        return [];
      }
      this.first = false;
      this.pendingLine = [];
      const bom = held.subarray(0, 3).equals(BOM);
      bytes = bom ? held.subarray(3) : held;
      // Clients skip it; the wire text keeps it, so the first frame replays with the bytes the server sent.
      if (bom) this.rawText?.push('\ufeff');
    }
    if (this.skipLf && bytes.length > 0) {
      this.skipLf = false;
      if (bytes[0] === 10) {
        bytes = bytes.subarray(1);
        this.rawText?.push('\n');
      }
    }
    const frames: SseFrame[] = [];
    // Everything up to the chunk's last line end is whole lines: decoded once, then cut as text.
    const last = Math.max(bytes.lastIndexOf(10), bytes.lastIndexOf(13));
    if (last === -1) {
      // Held by reference, not copied: callers hand over each chunk, as sockets do.
      if (bytes.length > 0) this.pendingLine.push(bytes);
      return frames;
    }
    let whole = bytes.subarray(0, last + 1);
    if (this.pendingLine.length > 0) {
      this.pendingLine.push(whole);
      whole = Buffer.concat(this.pendingLine);
      this.pendingLine = [];
    }
    const text = whole.toString('utf8');
    const end = text.length;
    let start = 0;
    let lf = text.indexOf('\n');
    let cr = text.indexOf('\r');
    while (start < end) {
      const i = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      const line = text.slice(start, i);
      let next = i + 1;
      const isCr = text.charCodeAt(i) === 13;
      if (isCr) {
        // A CR that ends the chunk may be the first half of a CRLF.
        if (next === end) this.skipLf = last + 1 === bytes.length;
        else if (text.charCodeAt(next) === 10) next++;
      }
      this.rawText?.push(line, isCr ? (next === i + 2 ? '\r\n' : '\r') : '\n');
      this.line(line, frames);
      start = next;
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
    }
    if (last + 1 < bytes.length) this.pendingLine.push(bytes.subarray(last + 1));
    return frames;
  }

  /** Flushes the decoder at end of stream; a block without its blank line is dropped, as browsers do. */
  end(): SseFrame[] {
    // An unfinished line never dispatches; a BOM prefix still held is just that. A comment held for its next line goes now.
    const comment = this.heldComment;
    this.heldComment = undefined;
    return comment ? [this.withRaw(comment)] : [];
  }

  /** With `raw`: wire text read since the last frame that no frame took (blank lines, unknown fields, an unfinished block). */
  rest(): string {
    return this.rawText?.join('') ?? '';
  }

  /** True when bytes of an unfinished line or block are held (the stream stopped mid-event). */
  /** Whether fields of an event not yet dispatched have been read. */
  private get inBlock(): boolean {
    return this.data !== undefined || this.event !== undefined || this.id !== undefined || this.retry !== undefined;
  }

  get pending(): boolean {
    return this.pendingLine.length > 0 || this.data !== undefined || this.event !== undefined;
  }

  private line(line: string, frames: SseFrame[]): void {
    if (this.heldComment) {
      // The line after a comment tells whether the comment ended its block (`:x` + blank, the canonical form) or not.
      const comment = this.heldComment;
      this.heldComment = undefined;
      if (line.length === 0 && !this.inBlock) {
        frames.push(this.withRaw(comment));
        return;
      }
      const current = (this.rawText as string[]).splice(-2);
      frames.push(this.withRaw(comment));
      this.rawText?.push(...current);
    }
    if (line.length === 0) {
      this.dispatch(frames);
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) {
      const comment: SseFrame = { kind: 'comment', comment: line.slice(1) };
      if (!this.rawText) frames.push(comment);
      // Inside an event the comment's bytes travel with the event, which owns the block (and its redaction).
      else if (this.inBlock) frames.push({ ...comment, raw: '' });
      else this.heldComment = comment;
      return;
    }
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    switch (field) {
      case 'event':
        this.event = value;
        break;
      case 'data':
        (this.data ??= []).push(value);
        break;
      case 'id':
        if (!value.includes('\u0000')) this.id = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break;
    }
  }

  /** The frame with the wire text it took, when that is not what serialising it would write. */
  private withRaw(frame: SseFrame): SseFrame {
    if (!this.rawText) return frame;
    const raw = this.rawText.join('');
    this.rawText = [];
    return raw === serializeSseFrame(frame) ? frame : { ...frame, raw };
  }

  private dispatch(frames: SseFrame[]): void {
    if (this.event !== undefined || this.data !== undefined || this.id !== undefined || this.retry !== undefined) {
      const frame: SseFrame = { kind: 'event' };
      if (this.event !== undefined) frame.event = this.event;
      if (this.data !== undefined) frame.data = this.data.join('\n');
      if (this.id !== undefined) frame.id = this.id;
      if (this.retry !== undefined) frame.retry = this.retry;
      frames.push(this.withRaw(frame));
    }
    this.event = undefined;
    this.data = undefined;
    this.id = undefined;
    this.retry = undefined;
  }
}

/** Parses a whole SSE body at once. */
export function parseSseText(text: string): SseFrame[] {
  const parser = new SseParser();
  return [...parser.push(text), ...parser.end()];
}

/** Writes one frame back to SSE wire text; parsing the result gives the frame back. */
export function serializeSseFrame(frame: SseFrame): string {
  if (frame.raw !== undefined) return frame.raw;
  if (frame.kind === 'comment') return `:${frame.comment}\n\n`;
  let out = '';
  if (frame.event !== undefined) out += `event: ${frame.event}\n`;
  if (frame.id !== undefined) out += `id: ${frame.id}\n`;
  if (frame.retry !== undefined) out += `retry: ${frame.retry}\n`;
  if (frame.data !== undefined) for (const line of frame.data.split('\n')) out += `data: ${line}\n`;
  return `${out}\n`;
}
