import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

/**
 * undici ends a body delimited by the connection's close as complete even when
 * the server reset the connection (it cannot tell a reset from a FIN on
 * every platform). The recorder must, so it watches the socket each request
 * went out on, through undici's diagnostics channels.
 */
const socketOf = new WeakMap<object, Socket>();
let lastWithHeaders: object | undefined;
let watching = false;

function watch(): void {
  if (watching) return;
  watching = true;
  subscribe('undici:client:sendHeaders', (message) => {
    const { request, socket } = message as { request: object; socket: Socket };
    socketOf.set(request, socket);
  });
  // Published synchronously just before the dispatcher hands the response head to its handler.
  subscribe('undici:request:headers', (message) => {
    lastWithHeaders = (message as { request: object }).request;
  });
}

/** A flag for the request whose response head is being handled right now: true once its connection was reset. */
export interface ResetWatch {
  readonly reset: boolean;
}

/** Call from inside the response-head callback of an undici request: watches that request's connection for a reset. */
export function watchUpstreamReset(): ResetWatch {
  const socket = lastWithHeaders && socketOf.get(lastWithHeaders);
  lastWithHeaders = undefined;
  const state = { reset: false };
  socket?.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ECONNRESET') state.reset = true;
  });
  return state;
}

watch();
