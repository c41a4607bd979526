import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';

/** The content codings a cassette stores decoded and replay encodes again. */
export const CONTENT_ENCODINGS = ['gzip', 'deflate', 'br'] as const;
export type ContentEncoding = (typeof CONTENT_ENCODINGS)[number];

/** The coding named by a `Content-Encoding` value when it is one we decode (a single coding, any case, `x-gzip` too). */
export function contentEncodingOf(value: string | undefined): ContentEncoding | undefined {
  const v = value?.trim().toLowerCase();
  if (v === 'gzip' || v === 'x-gzip') return 'gzip';
  if (v === 'deflate' || v === 'br') return v;
  return undefined;
}

/** Encodes a whole body for replay. */
export function encodeContent(bytes: Buffer, encoding: ContentEncoding): Buffer {
  if (encoding === 'gzip') return gzipSync(bytes);
  if (encoding === 'deflate') return deflateSync(bytes);
  return brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
}
