const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** One parsed SSE block (a dispatch) or one comment line, in stream order. */
export type SseFrame =
  | { kind: 'event'; event?: string | undefined; data?: string | undefined; id?: string | undefined; retry?: number | undefined }
  | { kind: 'comment'; comment: string };

/**
 * An incremental Server-Sent Events parser (WHATWG rules): feed it bytes as
 * they arrive, in chunks split anywhere, even inside a UTF-8 character or a CRLF.
 */
export class SseParser {
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
      bytes = held.subarray(0, 3).equals(BOM) ? held.subarray(3) : held;
    }
    if (this.skipLf && bytes.length > 0) {
      this.skipLf = false;
      if (bytes[0] === 10) bytes = bytes.subarray(1);
    }
    const frames: SseFrame[] = [];
    let start = 0;
    let lf = bytes.indexOf(10);
    let cr = bytes.indexOf(13);
    while (lf !== -1 || cr !== -1) {
      const i = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      let line = bytes.subarray(start, i);
      if (this.pendingLine.length > 0) {
        this.pendingLine.push(line);
        line = Buffer.concat(this.pendingLine);
        this.pendingLine = [];
      }
      this.line(line.toString('utf8'), frames);
      let next = i + 1;
      if (bytes[i] === 13) {
        if (next === bytes.length) this.skipLf = true;
        else if (bytes[next] === 10) next++;
      }
      start = next;
      if (lf !== -1 && lf < start) lf = bytes.indexOf(10, start);
      if (cr !== -1 && cr < start) cr = bytes.indexOf(13, start);
    }
    // Held by reference, not copied: callers hand over each chunk, as sockets do.
    if (start < bytes.length) this.pendingLine.push(bytes.subarray(start));
    return frames;
  }

  /** Flushes the decoder at end of stream; a block without its blank line is dropped, as browsers do. */
  end(): SseFrame[] {
    // An unfinished line never dispatches; a BOM prefix still held is just that.
    return [];
  }

  /** True when bytes of an unfinished line or block are held (the stream stopped mid-event). */
  get pending(): boolean {
    return this.pendingLine.length > 0 || this.data !== undefined || this.event !== undefined;
  }

  private line(line: string, frames: SseFrame[]): void {
    if (line.length === 0) {
      this.dispatch(frames);
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) {
      frames.push({ kind: 'comment', comment: line.slice(1) });
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

  private dispatch(frames: SseFrame[]): void {
    if (this.event !== undefined || this.data !== undefined || this.id !== undefined || this.retry !== undefined) {
      const frame: SseFrame = { kind: 'event' };
      if (this.event !== undefined) frame.event = this.event;
      if (this.data !== undefined) frame.data = this.data.join('\n');
      if (this.id !== undefined) frame.id = this.id;
      if (this.retry !== undefined) frame.retry = this.retry;
      frames.push(frame);
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
  if (frame.kind === 'comment') return `:${frame.comment}\n\n`;
  let out = '';
  if (frame.event !== undefined) out += `event: ${frame.event}\n`;
  if (frame.id !== undefined) out += `id: ${frame.id}\n`;
  if (frame.retry !== undefined) out += `retry: ${frame.retry}\n`;
  if (frame.data !== undefined) for (const line of frame.data.split('\n')) out += `data: ${line}\n`;
  return `${out}\n`;
}
