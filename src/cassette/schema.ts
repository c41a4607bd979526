import { z } from 'zod';
import { CONTENT_ENCODINGS } from './content-encoding.js';

/** The only cassette format version this build reads and writes. */
export const CASSETTE_VERSION = 1;

/** Offsets are milliseconds since the recording started, one global clock per cassette. */
const offset = z.number().nonnegative();
const seq = z.number().int().positive();

/**
 * Header values keep their wire multiplicity: a header sent twice (Set-Cookie)
 * is a list, so replay can send it twice again.
 */
export const headersSchema = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

/** A body is stored as exactly one of: parsed JSON, UTF-8 text, base64 bytes, or (too big to keep) its size and digest. */
export const bodySchema = z.union(
  [
    z.strictObject({ json: z.unknown() }),
    z.strictObject({ text: z.string() }),
    z.strictObject({ base64: z.base64() }),
    /** A body over the size a cassette keeps (decision 0007): its length and digest, never its bytes. */
    z.strictObject({ omitted: z.strictObject({ bytes: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }) }),
  ],
  { error: 'expected a body with exactly one of json, text, base64 or omitted' },
);

/** One SSE dispatch (event/data/id/retry) or one comment line, stamped on the timeline. */
export const sseItemSchema = z.strictObject({
  at: offset,
  after: z.number().int().nonnegative(),
  // In the order a cassette writes them (canonical-yaml.ts), so a loaded item is taken as it is, never copied.
  event: z.string().optional(),
  id: z.string().optional(),
  retry: z.number().int().nonnegative().optional(),
  data: z.string().optional(),
  comment: z.string().optional(),
  /**
   * The item's exact wire text, kept only when it differs from the canonical
   * form (field order, `\r\n` or `\r` endings, no space after the colon,
   * a comment inside an event): replay sends it as it came (decision 0009).
   */
  raw: z.string().optional(),
});

export const streamEndSchema = z.enum(['server-closed', 'client-closed', 'proxy-closed', 'broken']);

export const sseStreamSchema = z.strictObject({
  events: z.array(sseItemSchema),
  end: streamEndSchema,
  /** What broke the stream, when `end` is `broken`. */
  error: z.string().optional(),
});

/**
 * One WebSocket frame on the global timeline. A client frame is a request: it
 * takes the next `seq` (its `after` is that seq). A server frame carries the
 * last seq issued when it arrived, which is what causal replay waits for.
 * Text that parses as JSON is kept as `json`; other text as `text`; binary as `base64`.
 */
export const wsFrameSchema = z
  .strictObject({
    at: offset,
    from: z.enum(['client', 'server']),
    seq: seq.optional(),
    after: z.number().int().nonnegative(),
    json: z.unknown().optional(),
    text: z.string().optional(),
    base64: z.base64().optional(),
    close: z.strictObject({ code: z.number().int(), reason: z.string() }).optional(),
  })
  .refine((f) => [f.json !== undefined, f.text !== undefined, f.base64 !== undefined, f.close !== undefined].filter(Boolean).length === 1, {
    error: 'a frame has exactly one of json, text, base64 or close',
  })
  .refine((f) => (f.from === 'client') === (f.seq !== undefined), { error: 'client frames have a seq, server frames none' });

export const wsSessionSchema = z.strictObject({
  frames: z.array(wsFrameSchema),
  end: streamEndSchema,
  error: z.string().optional(),
});

/** The error of a stream (and the message of a failure) that `bench recover` ends because the recorder died first. */
export const RECORDING_INTERRUPTED = 'the recorder stopped before this exchange ended';

export const requestSchema = z.strictObject({
  method: z.string().min(1),
  /** Path plus query string, exactly as the client sent it. */
  path: z.string().startsWith('/'),
  /**
   * The origin an absolute-form request named (a client behind `HTTP_PROXY`),
   * when the recording proxy forwarded it there (decision 0019).
   */
  // Not a URL check: the host may be the `<host>` placeholder of a portable cassette.
  origin: z
    .string()
    .regex(/^https?:\/\/[^/?#\s]+$/, 'an origin like http://localhost:8080')
    .optional(),
  headers: headersSchema,
  body: bodySchema.optional(),
  /**
   * The content coding the client applied to its body (its `Content-Encoding`):
   * the body holds the decoded content, redacted and matched as such (decision 0015).
   */
  encoding: z.enum(CONTENT_ENCODINGS).optional(),
});

export const responseSchema = z
  .strictObject({
    status: z.number().int().min(100).max(599),
    headers: headersSchema,
    body: bodySchema.optional(),
    stream: sseStreamSchema.optional(),
    /** An upgraded connection (status 101): every frame both ways. */
    websocket: wsSessionSchema.optional(),
    /**
     * The content coding the server applied (its `Content-Encoding`): the body
     * or stream holds the decoded content, and replay encodes it again (decision 0007).
     */
    encoding: z.enum(CONTENT_ENCODINGS).optional(),
    /**
     * Trailer fields the server sent after the body or stream (decision 0014):
     * the replay server and the undici door send them again; a Fetch Response has none to give.
     */
    trailers: headersSchema.optional(),
  })
  .refine((r) => [r.body, r.stream, r.websocket].filter((x) => x !== undefined).length <= 1, {
    error: 'a response has at most one of a body, a stream or a websocket',
  });

/** A request the recorder could not complete upstream (refused, reset, timed out). */
export const failureSchema = z.strictObject({
  code: z.string().min(1),
  message: z.string(),
});

export const timingSchema = z.strictObject({
  start: offset,
  headers: offset.optional(),
  end: offset.optional(),
});

export const interactionSchema = z
  .strictObject({
    seq,
    request: requestSchema,
    response: responseSchema.optional(),
    failure: failureSchema.optional(),
    timing: timingSchema,
  })
  .refine((i) => i.response !== undefined || i.failure !== undefined, {
    error: 'an interaction needs a response or a failure',
  });

export const metaSchema = z.strictObject({
  recorder: z.string(),
  /** Base URL of the recorded server, never with credentials. */
  target: z.string(),
  recordedAt: z.string(),
  labels: z.record(z.string(), z.string()).optional(),
  /** Contract packs that apply to this cassette. */
  packs: z.array(z.string()).optional(),
});

export const cassetteSchema = z.strictObject({
  version: z.literal(CASSETTE_VERSION),
  meta: metaSchema,
  interactions: z.array(interactionSchema),
});

export type Headers = z.infer<typeof headersSchema>;
export type Body = z.infer<typeof bodySchema>;
export type SseItem = z.infer<typeof sseItemSchema>;
export type SseStream = z.infer<typeof sseStreamSchema>;
export type StreamEnd = z.infer<typeof streamEndSchema>;
export type WsFrame = z.infer<typeof wsFrameSchema>;
export type WsSession = z.infer<typeof wsSessionSchema>;
export type RecordedRequest = z.infer<typeof requestSchema>;
export type RecordedResponse = z.infer<typeof responseSchema>;
export type Failure = z.infer<typeof failureSchema>;
export type Timing = z.infer<typeof timingSchema>;
export type Interaction = z.infer<typeof interactionSchema>;
export type CassetteMeta = z.infer<typeof metaSchema>;
export type Cassette = z.infer<typeof cassetteSchema>;
