import { z } from 'zod';

/**
 * Which answers a fault rule breaks: by the request (method, a path glob where `*` is one segment's text and
 * `**` any run of segments), by the recording (cassette, seq), by the nth call the rule sees, and with a
 * seeded probability. Everything given must hold.
 */
const selector = {
  method: z.string().min(1).optional(),
  path: z.string().startsWith('/').optional(),
  cassette: z.string().min(1).optional(),
  seq: z.number().int().positive().optional(),
  /** Only the nth call (1-based) that the other selectors match. */
  call: z.number().int().positive().optional(),
  /** Break at most this many answers. */
  times: z.number().int().positive().optional(),
  /** Break each matching call with this probability, drawn from the seed: the same seed, the same calls broken. */
  probability: z.number().gt(0).max(1).optional(),
};

/** Where in a body a break comes: after this many SSE events, bytes, or WebSocket server frames (default 0). */
const after = {
  events: z.number().int().nonnegative().optional(),
  bytes: z.number().int().nonnegative().optional(),
  frames: z.number().int().nonnegative().optional(),
};

export const faultRuleSchema = z.discriminatedUnion('kind', [
  /** An error status instead of the recording, with its headers (`Retry-After`) and an optional body. */
  z.strictObject({
    kind: z.literal('status'),
    status: z.number().int().min(400).max(599),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.string().optional(),
    ...selector,
  }),
  /** The connection drops before any header. */
  z.strictObject({ kind: z.literal('reset'), ...selector }),
  /** The headers and the first part of the body, then the connection drops (a WebSocket: no close frame). */
  z.strictObject({ kind: z.literal('reset-after'), ...after, ...selector }),
  /** The headers and the first part of the body, then nothing more, the connection left open. */
  z.strictObject({ kind: z.literal('stall'), ...after, ...selector }),
  /** The answer starts this much later. */
  z.strictObject({ kind: z.literal('latency'), ms: z.number().int().positive(), ...selector }),
  /** The first part of the body, then a chunk the HTTP framing cannot parse. */
  z.strictObject({ kind: z.literal('malformed'), events: after.events, bytes: after.bytes, ...selector }),
  /** The WebSocket closes with this code after this many server frames. */
  z.strictObject({
    kind: z.literal('ws-close'),
    code: z.number().int().min(1000).max(4999),
    reason: z.string().max(123).optional(),
    frames: after.frames,
    ...selector,
  }),
  /** The nth SSE event (1-based) is sent twice. */
  z.strictObject({ kind: z.literal('duplicate-event'), event: z.number().int().positive(), ...selector }),
  /** The nth SSE event (1-based) is never sent. */
  z.strictObject({ kind: z.literal('drop-event'), event: z.number().int().positive(), ...selector }),
]);
export type FaultRule = z.infer<typeof faultRuleSchema>;
export type FaultKind = FaultRule['kind'];

/** A faults file (`bench replay --faults FILE`): the rules and the seed their probabilities draw from. */
export const faultsFileSchema = z.strictObject({
  seed: z.number().int().optional(),
  faults: z.array(faultRuleSchema),
});
export type FaultsFile = z.infer<typeof faultsFileSchema>;

/** A fault that fired: which rule, on which call, on which recording; a test asserts on these. */
export interface InjectedFault {
  /** The rule's position in the list (0-based). */
  rule: number;
  kind: FaultKind;
  method: string;
  path: string;
  cassette: string;
  seq: number;
  /** The how-many-th call this rule's selectors matched. */
  call: number;
}
