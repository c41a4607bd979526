import type { Transform } from 'node:stream';
import { constants, createBrotliCompress, createDeflate, createGzip, type Zlib } from 'node:zlib';
import type { ContentEncoding } from '../cassette/index.js';

/**
 * Encodes a replayed stream with the coding the server used, flushing after
 * every batch so each event reaches the client when it is due, not when a
 * compressor block fills.
 */
export async function* encodeStream(frames: AsyncGenerator<Buffer>, encoding: ContentEncoding): AsyncGenerator<Buffer> {
  const z = (encoding === 'gzip' ? createGzip() : encoding === 'deflate' ? createDeflate() : createBrotliCompress()) as Zlib & Transform;
  const out: Buffer[] = [];
  z.on('data', (d: Buffer) => out.push(d));
  const flushFlag = encoding === 'br' ? constants.BROTLI_OPERATION_FLUSH : constants.Z_SYNC_FLUSH;
  const take = () => (out.length === 1 ? (out.pop() as Buffer) : Buffer.concat(out.splice(0)));
  try {
    for await (const batch of frames) {
      z.write(batch);
      await new Promise<void>((resolve) => z.flush(flushFlag, () => resolve()));
      if (out.length > 0) yield take();
    }
    await new Promise<void>((resolve) => z.end(() => resolve()));
    await new Promise<void>((resolve) => (z.readableEnded ? resolve() : z.once('end', () => resolve())));
    if (out.length > 0) yield take();
  } finally {
    z.destroy();
  }
}
