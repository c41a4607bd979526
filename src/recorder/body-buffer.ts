import { createHash, type Hash } from 'node:crypto';
import { type Body, encodeBody, MAX_STORED_BODY, omittedBody } from '../cassette/index.js';

/**
 * Gathers a body as it passes, up to the size a cassette keeps; past it, only
 * its length and digest, so a 400 MB download costs no memory (decision 0007).
 */
export class BodyBuffer {
  private chunks: Buffer[] | undefined = [];
  private hash: Hash | undefined;
  bytes = 0;

  push(chunk: Buffer): void {
    this.bytes += chunk.byteLength;
    if (this.chunks && this.bytes > MAX_STORED_BODY) {
      this.hash = createHash('sha256');
      for (const c of this.chunks) this.hash.update(c);
      this.chunks = undefined;
    }
    if (this.chunks) this.chunks.push(chunk);
    else this.hash?.update(chunk);
  }

  /** The body's bytes, or the mark of one too big to keep; undefined when empty. */
  take(): Buffer | Body | undefined {
    if (this.bytes === 0) return undefined;
    if (this.chunks) return this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    return omittedBody(this.bytes, (this.hash as Hash).digest('hex'));
  }
}

/** A gathered body as a cassette stores it: its bytes encoded, or the mark already made for one too big. */
export function storedBody(raw: Buffer | Body | undefined): Body | undefined {
  return raw === undefined ? undefined : Buffer.isBuffer(raw) ? encodeBody(raw) : raw;
}
