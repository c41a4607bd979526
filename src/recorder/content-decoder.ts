import { createBrotliDecompress, createGunzip, createInflate, type Zlib } from 'node:zlib';
import type { ContentEncoding } from '../cassette/index.js';

type Stamp = { at: number; after: number };

/**
 * Decodes a compressed response on the side, as its chunks pass: the client
 * gets the bytes as sent, the recording gets the content. Each decoded piece
 * carries the arrival stamp of the compressed chunk it came out of.
 */
export class ContentDecoder {
  private readonly zlib: Zlib & NodeJS.ReadWriteStream;
  private readonly stamps: Stamp[] = [];
  private failed: Error | undefined;
  private readonly done: Promise<void>;

  constructor(
    readonly encoding: ContentEncoding,
    onData: (decoded: Buffer, stamp: Stamp) => void,
  ) {
    this.zlib = (encoding === 'gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : createBrotliDecompress()) as Zlib &
      NodeJS.ReadWriteStream;
    this.zlib.on('data', (d: Buffer) => onData(d, this.stamps[0] ?? { at: 0, after: 0 }));
    this.done = new Promise((resolve) => {
      this.zlib.on('end', resolve);
      this.zlib.on('error', (e) => {
        this.failed = e;
        resolve();
      });
    });
  }

  /** Feeds one compressed chunk, stamped with its arrival. */
  push(chunk: Buffer, stamp: Stamp): void {
    if (this.failed) return;
    this.stamps.push(stamp);
    // zlib handles writes in order and emits a chunk's output before its callback.
    this.zlib.write(chunk, () => this.stamps.shift());
  }

  /** Ends the input; resolves once everything is decoded. `error` then says whether the bytes were not valid. */
  async end(): Promise<void> {
    if (!this.failed) this.zlib.end();
    await this.done;
  }

  /** Why the content could not be decoded (corrupt or truncated input), if it could not. */
  get error(): Error | undefined {
    return this.failed;
  }
}
