import type { Cassette, Interaction, MachineFolders, RedactionConfig, StreamEnd } from '../cassette/index.js';
import type { CassetteClock } from './cassette-clock.js';
import type { UnmatchedRequestError } from './errors.js';
import type { FaultRule, InjectedFault } from './faults/schema.js';
import type { MatchOptions, RequestShape } from './match-request.js';
import type { StreamCauses } from './stream-causes.js';
import type { TimingMode } from './timing.js';
import type { WsSessionLike } from './ws/index.js';

export interface ReplayOptions extends MatchOptions {
  /** strict (default): an unmatched request is an error; lenient: logged and answered 404. */
  mode?: 'strict' | 'lenient';
  /** instant (default), realtime, or scaled:<factor>. */
  timing?: TimingMode | string;
  /** The HTTP status of a strict miss from the replay server (default 400: not retried by common clients). */
  onMiss?: number;
  /** The largest request body the replay server reads before answering 413 (default 64 MiB). */
  maxRequestBody?: number;
  /** After the last recorded answer of a repeated request: repeat it (default) or fail. */
  onExhausted?: 'repeat' | 'error';
  /** The client's own workspace, home and temp folders, put back where the cassette has placeholders. */
  folders?: MachineFolders;
  /**
   * The `tapedeck.config.json` whose `match` and `redact` sections the door reads under these options: the
   * nearest from the working folder up to the repository root by default; `false` reads none.
   */
  config?: string | false;
  /** The redaction the cassettes were recorded with: live requests get the same, so they match. */
  redact?: RedactionConfig;
  /** Faults to inject: the transport broken on the answers the rules choose (see `FaultRule`). */
  faults?: readonly FaultRule[];
  /** The seed a fault's `probability` draws from (default 0): the same seed breaks the same calls. */
  faultSeed?: number | undefined;
  /** Called as each fault fires: a door logs it. */
  onFault?: (fault: InjectedFault) => void;
  /**
   * Re-chunks each stream's bytes on their way out (fuzzing: other chunk
   * boundaries, other line endings); which bytes are due, and when, is unchanged.
   */
  reframe?: (frames: AsyncGenerator<Buffer>, stream: EntryInfo) => AsyncGenerator<Buffer>;
}

export interface NamedCassette {
  name: string;
  cassette: Cassette;
  /** The file it was loaded from: a usage record (for `bench prune`) names it. */
  file?: string;
}

/** One recorded interaction as the engine serves it. */
export interface Entry {
  name: string;
  /** Position of its cassette in the set: a set replays as the sequence of runs it was recorded as. */
  index: number;
  clock: CassetteClock;
  interaction: Interaction;
  /** Computed with the rest of its route on the route's first request (see `indexRoute`). */
  shape?: RequestShape;
  /** Its shape's group key, set with `shape`. */
  key?: string;
  /** The latest state-changing request recorded before this one. */
  anchor: number;
  served: boolean;
  /** Response headers and body bytes, computed on first use: they never change. */
  prepared?: { headers: [string, string][]; body: Buffer; bodiless: boolean; trailers: [string, string][] | undefined };
  /** Per event of its stream, the request it waits for (decision 0008), computed on first use. */
  causes?: StreamCauses;
  /** Per event of its stream, its wire text, computed on first use: a stream replayed again is not encoded again. */
  wire?: string[];
  /** The placeholders its recorded answer holds, where a live request's values may be given back (decision 0016). */
  placeholders?: Set<string>;
}

export type ReplayAnswer =
  | {
      kind: 'response';
      entry: EntryInfo;
      status: number;
      headers: [string, string][];
      body: Buffer;
      delayMs: number;
      /**
       * How the body ended when recorded: whole; `broken` (the upstream reset
       * or cut it short: send these bytes, then break the connection); or
       * `client-closed` (the recorded client stopped reading: send these bytes and keep the response open).
       */
      end: BodyEnd;
      /**
       * No body by definition (the answer to a HEAD, a 1xx, 204 or 304): the
       * recorded content-length, if any, is among the headers as the server sent it, and doors add none of their own.
       */
      bodiless: boolean;
      /** Trailer fields to send after a whole body (decision 0014); a door that has a body's length then leaves it out. */
      trailers?: [string, string][] | undefined;
    }
  | {
      kind: 'stream';
      entry: EntryInfo;
      status: number;
      headers: [string, string][];
      frames: (signal: AbortSignal) => AsyncGenerator<Buffer>;
      /** As recorded, or a fault's: `malformed` sends a chunk the HTTP framing cannot parse after the bytes. */
      end: StreamEnd | 'malformed';
      /** A fault's latency: the headers wait this long. */
      delayMs?: number;
      /** Trailer fields to send after a stream the server ended. */
      trailers?: [string, string][] | undefined;
    }
  | { kind: 'failure'; entry: EntryInfo; status: 502; body: Buffer }
  /** A fault: the connection drops before any header. */
  | { kind: 'reset'; entry: EntryInfo }
  | { kind: 'websocket'; entry: EntryInfo; status: 101; session: WsSessionLike }
  | {
      kind: 'unmatched';
      error: UnmatchedRequestError;
      /** Strict: the client under test must fail (in-process doors throw or fail the fetch). */
      strict: boolean;
      status: number;
      body: Buffer;
    };

/**
 * What a strict miss answers over HTTP: a 4xx that no common client retries
 * (the openai SDK retries 408, 409, 429 and 5xx; undici's RetryAgent 429 and
 * 500-504; httpx nothing), so a miss is one line in the log, not three.
 */
export const STRICT_MISS_STATUS = 400;

/** How many unmatched requests an engine keeps for its report (the count goes on). */
export const MISSES_KEPT = 100;

/** How a recorded plain body ended; `malformed` is a fault's (a chunk the HTTP framing cannot parse after the bytes). */
export type BodyEnd = 'complete' | 'broken' | 'client-closed' | 'malformed';

/** The answers a plain HTTP request can get. */
export type HttpAnswer = Exclude<ReplayAnswer, { kind: 'websocket' }>;

export interface EntryInfo {
  cassette: string;
  seq: number;
}

/** A recorded interaction as a report of use lists it: where it is, and what it answers. */
export interface UnusedEntry extends EntryInfo {
  method: string;
  path: string;
}
