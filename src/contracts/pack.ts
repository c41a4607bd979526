import type { z } from 'zod';
import type { Rule } from './rules.js';
import type { TurnStart } from './stream-events.js';

/** What a result check is given beside the result: the request it answers, and earlier results by method. */
export interface ResultContext {
  request: unknown;
  earlier(method: string): readonly unknown[];
}

/** A named set of rules and payload schemas for one kind of stream. */
export interface Pack {
  name: string;
  description: string;
  /** Requests that start a turn, for turn-scoped rules. */
  turnStarts: TurnStart[];
  /** A zod schema for the data of each event type; a type not listed is reported as unknown when the pack lists any. */
  payloads: Record<string, z.ZodType>;
  /** A protocol larger than the pack describes: types without a payload schema are not reported as unknown. */
  openVocabulary?: boolean;
  /**
   * JSON-RPC over WebSocket: the `result` of the response to each client
   * request, by the request's method (a response's shape depends on what it
   * answers, which its own type, `response`, cannot say).
   */
  results?: Record<string, z.ZodType>;
  /**
   * Checks of a result that its schema alone cannot make, by the method answered: the request and the session's
   * earlier results are at hand (MCP: a tool that lists an outputSchema must return structuredContent). Each returns
   * what is wrong, or undefined.
   */
  resultChecks?: Readonly<Record<string, (result: unknown, context: ResultContext) => string | undefined>>;
  rules: Rule[];
  /**
   * JSON-RPC over HTTP (MCP's Streamable HTTP): the interactions whose requests carry the same value of this header
   * are one session, checked as a whole (both sides' messages, in wire order) instead of stream by stream. The
   * server issues the values (default), or the client does (`issuedBy: client`: a header on its every request).
   */
  session?: { header: string; issuedBy?: 'server' | 'client' | undefined };
  /** Paths of the stream requests this pack describes; without it, every stream of a cassette is checked. */
  routes?: RegExp[];
  /**
   * Event types a server may add anywhere or leave out (heartbeats, status
   * flaps, activity pings). Fuzzing inserts and deletes them; the rules still
   * decide which of those variations are legal.
   */
  optional?: string[];
  /**
   * Housekeeping event types the reference calls noise (a client must
   * tolerate them and depends on none): a real server sends them depending on
   * timing, so drift leaves them out, as it does `ignoreEventTypes`.
   */
  noise?: string[];
  /**
   * Event types whose events may come in any order among themselves. By default the fuzzer never moves an event
   * past one of its type that shares a key (a message id, an item id, an index): a message's deltas carry its text
   * in order. List a type here only where the protocol says its order is free.
   */
  reorderable?: string[];
  /**
   * A profile of another pack's protocol (one server's dialect, one harness's
   * ordering): never chosen for a cassette by its traffic alone, only by name.
   */
  profile?: boolean;
}
