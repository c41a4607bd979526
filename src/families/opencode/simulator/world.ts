import type { ServerResponse } from 'node:http';
import type { SeededIds } from '../../../net/seeded-ids.js';

export type Json = Record<string, unknown>;
export const VERSION = '1.18.33';

/** An HTTP error answered with the body opencode would send. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

export const notFound = (what: string) => new HttpError(404, { name: 'NotFoundError', data: { message: what } });

export interface Session {
  info: Json;
  messages: { info: Json; parts: Json[] }[];
  busy: boolean;
  abort?: () => void;
}

export interface Pending {
  id: string;
  sessionID: string;
  payload: Json;
  reply: (reply: string) => void;
}

/** The simulator's state: seeded ids and clock, sessions, permissions asked, and the `/event` streams open. */
export interface World {
  ids: SeededIds;
  sessions: Map<string, Session>;
  permissions: Map<string, Pending>;
  streams: Set<ServerResponse>;
  /** An id as opencode makes them: a prefix, seeded hex and a counter. */
  id(prefix: string): string;
  /** Sends an event to every open `/event` stream (live only: a stream sees what comes after it opened). */
  publish(type: string, properties: Json): void;
}

/** A fresh world from a seed. */
export function world(ids: SeededIds): World {
  let counter = 0;
  const streams = new Set<ServerResponse>();
  const id = (prefix: string) => `${prefix}_${ids.hex(9)}${(counter++).toString(16).padStart(3, '0')}${ids.hex(14)}`;
  const publish = (type: string, properties: Json) => {
    const frame = `data: ${JSON.stringify({ id: id('evt'), type, properties })}\n\n`;
    for (const res of streams) res.write(frame);
  };
  return { ids, sessions: new Map(), permissions: new Map(), streams, id, publish };
}
