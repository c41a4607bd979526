import type { WsSession } from '../../cassette/index.js';
import type { UnmatchedRequestError } from '../errors.js';

/** What the replay sends to the client next: a data frame, or the recorded close. */
export type WsOutgoing =
  | { data: Buffer | string; binary: boolean }
  | { close: { code: number; reason: string } }
  /** A fault: the connection drops with no close frame. */
  | { terminate: true };

/** What one connection has been sent, whichever sessions it came from. */
export interface WsDelivered {
  /** Text frames as the client got them: the values handed out to it are in these. */
  texts: string[];
  /** Live ids of the requests answered. */
  answered: Set<string>;
  /** How many frames that were not answers. */
  others: number;
}

/** A client frame as a connection sent it. */
export interface ClientFrame {
  data: Buffer;
  binary: boolean;
}

/** What a door needs of a replayed WebSocket session. */
export interface WsSessionLike {
  readonly end: WsSession['end'];
  receive(data: Buffer, binary: boolean): UnmatchedRequestError | undefined;
  outgoing(signal: AbortSignal): AsyncGenerator<WsOutgoing>;
}
