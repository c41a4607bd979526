/** One parsed SSE block (a dispatch) or one comment line, in stream order. */
export type SseFrame =
  | { kind: 'event'; event?: string | undefined; data?: string | undefined; id?: string | undefined; retry?: number | undefined }
  | { kind: 'comment'; comment: string };

/**
 * An incremental Server-Sent Events parser (WHATWG rules): feed it bytes as
 * they arrive, in chunks split anywhere, even inside a UTF-8 character or a CRLF.
 */
export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private buffer = '';
  private skipLf = false;
  private first = true;
  private event: string | undefined;
  private data: string[] | undefined;
  private id: string | undefined;
  private retry: number | undefined;

  /** Parses the next chunk; returns the frames it completed. */
  push(chunk: Uint8Array | string): SseFrame[] {
    let text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.skipLf && text.length > 0) {
      this.skipLf = false;
      if (text.charCodeAt(0) === 10) text = text.slice(1);
    }
    // Only the new text can hold a line ending: a long line is scanned once, not once per chunk.
    let i = this.buffer.length;
    this.buffer += text;
    const frames: SseFrame[] = [];
    let start = 0;
    const buf = this.buffer;
    for (; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line(buf.slice(start, i), frames);
      if (c === 13) {
        if (i + 1 === buf.length) this.skipLf = true;
        else if (buf.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.buffer = buf.slice(start);
    return frames;
  }

  /** Flushes the decoder at end of stream; a block without its blank line is dropped, as browsers do. */
  end(): SseFrame[] {
    const rest = this.decoder.decode();
    return rest ? this.push(rest) : [];
  }

  /** True when bytes of an unfinished line or block are held (the stream stopped mid-event). */
  get pending(): boolean {
    return this.buffer.length > 0 || this.data !== undefined || this.event !== undefined;
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
