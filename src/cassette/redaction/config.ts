import { z } from 'zod';
import type { Cassette, Interaction, SseItem, WsFrame } from '../schema.js';
import type { InteractionVisitor } from '../visit.js';
import { inScrubOrder } from './growing-secret-list.js';
import { backtrackingRisk } from './pattern-safety.js';

/** What to redact beyond the defaults, and what never to redact (`tapedeck.config.json` "redact"). */
export const redactionConfigSchema = z.strictObject({
  /** More header names to redact (case-insensitive). */
  headers: z.array(z.string()).default([]),
  /** More query parameter names. */
  query: z.array(z.string()).default([]),
  /** More JSON field names, at any depth of request, response and SSE data. */
  jsonFields: z.array(z.string()).default([]),
  /**
   * Routes whose path segment is a secret, as `/v1/keys/{key}`: what stands in
   * `{name}` is redacted everywhere. Adds to the built-in `DEFAULT_SECRET_ROUTES`.
   */
  paths: z.array(z.string().regex(/\{[A-Za-z0-9_.-]+\}/, 'a route with a {name} segment, like /v1/keys/{key}')).default([]),
  /** More regular expressions; every match anywhere is a secret. One that can backtrack catastrophically is refused. */
  patterns: z
    .array(
      z.string().refine((p) => backtrackingRisk(p) === undefined, {
        error: (i) => `${JSON.stringify(i.input)} ${backtrackingRisk(String(i.input))}`,
      }),
    )
    .default([]),
  /** Names (headers, query parameters, fields) never redacted, even when they look secret. */
  exempt: z.array(z.string()).default([]),
});
export type RedactionConfig = z.infer<typeof redactionConfigSchema>;
export const DEFAULT_REDACTION: RedactionConfig = redactionConfigSchema.parse({});

/** Headers whose values never reach disk, whatever the configuration says. */
export const ALWAYS_REDACTED_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'];
/** Names that look secret but identify a request, not a caller: kept, so retries stay readable. */
export const NOT_SECRET: readonly string[] = ['idempotency-key'];

/** The stable stand-in written in place of a secret. */
export function redactionPlaceholder(name: string): string {
  return `<redacted:${name.toLowerCase().replace(/[^a-z0-9_.-]+/g, '-')}>`;
}

export const PLACEHOLDER = /^<redacted:[a-z0-9_.-]+>$/;
// Values this short are replaced only where they were found, never everywhere.
export const MIN_GLOBAL = 6;

export interface Redactor {
  /** Every secret value the cassette still holds, with the kind of secret it is. */
  findSecrets(c: Cassette): { value: string; kind: string }[];
  /** Credential shapes (JWT, sk- keys, bearer tokens, ...) in a piece of text. */
  findShapes(text: string): { value: string; kind: string }[];
  /** A copy with every secret replaced, wherever it occurs. */
  cassette(c: Cassette): Cassette;
  /** A redactor for pieces of one recording given in turn (the journal). */
  session(): RedactorSession;
  /**
   * Two passes for a recording too big to copy whole: `learn` every
   * interaction, then `scrub` each (and `target`) of every secret learnt.
   */
  twoPass(before?: { visitor: InteractionVisitor; text: (s: string) => string }): {
    /** Learns the interaction's secrets; returns them as learnt, for `learnPairs` to teach another redactor the same. */
    learn(i: Interaction): SecretPair[];
    /** Learns secrets that `learn` returned, as if their interaction were learnt again here. */
    learnPairs(pairs: readonly SecretPair[]): void;
    scrub(i: Interaction): Interaction;
    target(s: string): string;
    /**
     * What `scrub` replaces now: a scrub is a function of the interaction and this list alone. The list grows in
     * place as secrets are learnt (compare `version`); `sameScrubList` compares two in scrub order.
     */
    list(): ScrubList;
    /** Changes whenever `list` does. */
    version(): number;
  };
  /**
   * A live request with its secrets replaced as a recording would have them
   * (for replay matching). With `keep`, only those headers (lowercase names)
   * come back; every header still lends its secrets to the path and body.
   */
  request(
    r: { path: string; headers: Record<string, string | string[] | undefined>; body: string },
    keep?: ReadonlySet<string>,
  ): {
    path: string;
    headers: Record<string, string | string[] | undefined>;
    body: string;
  };
}

/** Redaction of one recording given in pieces (the journal's windows). */
export interface RedactorSession {
  /**
   * The piece scrubbed of the secrets found in it and in every piece before. `context`: for the SSE items or
   * WebSocket frames `of` the piece, those of the same stream an earlier piece held, read again to find a secret
   * split across both, never returned.
   */
  redact(c: Cassette, context?: PieceContext): Cassette;
  /**
   * Where a secret may have begun in these SSE items (or frames) of one stream that items yet to come would
   * finish: the index of the first item to hold back, `items.length` when none. `before` are the stream's items
   * already given, read for context.
   */
  unfinishedFrom(items: SseItem[], before: SseItem[]): number;
  unfinishedFramesFrom(frames: WsFrame[], before: WsFrame[]): number;
  /** Learns secrets another redactor found in a piece it redacted (`twoPass().learn`'s), as if this one had. */
  learnPairs(pairs: readonly SecretPair[]): void;
  /** The interaction scrubbed of every secret learnt so far, learning none from it: itself while none is learnt. */
  scrub(i: Interaction): Interaction;
}

/** The items of a stream an earlier piece held, `before` the list `of` items (or frames) in this piece. */
export type PieceContext = { of: SseItem[]; before: SseItem[] } | { of: WsFrame[]; before: WsFrame[] };

/** A secret value and the name its placeholder gets. */
export type SecretPair = readonly [value: string, name: string];
/** Every spelling of every secret a scrub replaces, longest first. */
export type ScrubList = readonly (readonly [string, string])[];

/** Whether two scrub lists replace the same values by the same names in the same (scrub) order. */
export function sameScrubList(a: ScrubList, b: ScrubList): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  const [x, y] = [inScrubOrder(a), inScrubOrder(b)];
  return x.every(([v, n], k) => y[k]?.[0] === v && y[k]?.[1] === n);
}

export interface RedactorOptions {
  /**
   * false: the rule before decision 0016, every value under a secret-sounding name redacted, protocol identifiers
   * (`progressToken`) included. A replay matches a recording made by that rule with it.
   */
  judgeValues?: boolean;
}
