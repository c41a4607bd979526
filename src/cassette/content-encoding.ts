import { brotliCompressSync, brotliDecompressSync, constants, deflateSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';

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

/**
 * The coding a `Content-Encoding` names when tapedeck cannot decode it (zstd
 * on Node 20, a chain such as `gzip, br`): a body in it is kept as its bytes,
 * neither redacted nor searched. `undefined` for none, identity, or one we decode.
 */
export function unreadableCoding(value: string | undefined): string | undefined {
  const v = value?.trim().toLowerCase();
  if (!v || v === 'identity' || contentEncodingOf(v)) return undefined;
  return v;
}

/**
 * Decodes a whole body at once, up to `limit` bytes of content: `undefined`
 * when the bytes are not valid in that coding, or hold more (a bomb is not unpacked).
 */
export function decodeContent(bytes: Uint8Array, encoding: ContentEncoding, limit: number): Buffer | undefined {
  const options = { maxOutputLength: limit };
  try {
    if (encoding === 'gzip') return gunzipSync(bytes, options);
    if (encoding === 'deflate') return inflateSync(bytes, options);
    return brotliDecompressSync(bytes, options);
  } catch {
    return undefined;
  }
}

/** Encodes a whole body for replay. */
export function encodeContent(bytes: Buffer, encoding: ContentEncoding): Buffer {
  if (encoding === 'gzip') return gzipSync(bytes);
  if (encoding === 'deflate') return deflateSync(bytes);
  return brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
}
