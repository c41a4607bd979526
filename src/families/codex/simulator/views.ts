import type { SeededIds } from '../../../net/seeded-ids.js';

export type Msg = Record<string, unknown>;
export type Params = Record<string, unknown>;
export const VERSION = '0.171.0';

/** A JSON-RPC error the simulator answers with. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export interface Thread {
  id: string;
  cwd: string;
  turns: string[];
  /** The running turn and how to stop it. */
  active?: { id: string; interrupt: () => void };
}

/** What every connection of one simulator shares: its seeded ids and clock, and the threads. */
export interface World {
  ids: SeededIds;
  threads: Map<string, Thread>;
  /** A UUIDv7-shaped id from the seed. */
  uuid(): string;
}

/** One connection as a turn talks to it: notifications, requests from the server, and their pending answers. */
export interface Peer {
  notify(method: string, params: Params): void;
  /** A request from the server; resolves with the client's result, or undefined if the turn ends first. */
  ask(method: string, params: Params): { id: number; answer: Promise<unknown> };
  pending: Map<number, (result: unknown) => void>;
}

/** The result of thread/start and thread/resume: the thread and the settings it runs under. */
export function threadOpened(thread: Thread): Msg {
  return {
    thread: threadView(thread),
    model: 'mock-model',
    modelProvider: 'mock',
    cwd: thread.cwd,
    approvalPolicy: 'on-request',
    approvalsReviewer: 'user',
    sandbox: { type: 'dangerFullAccess' },
  };
}

/** §3 Turn: the fields every turn carries; times are filled in as the turn runs. */
export function turnView(id: string, status: string, items: Msg[]): Msg {
  return { id, rootTurnId: id, items, itemsView: 'summary', status, error: null, startedAt: null, completedAt: null, durationMs: null };
}

export function threadView(t: Thread): Msg {
  return {
    id: t.id,
    sessionId: t.id,
    cwd: t.cwd,
    status: { type: 'idle' },
    turns: [],
    modelProvider: 'mock',
    model: 'mock-model',
    cliVersion: VERSION,
    projectId: null,
    preview: '',
    ephemeral: false,
    createdAt: 1_787_000_000,
    updatedAt: 1_787_000_000,
    source: 'appServer',
  };
}
