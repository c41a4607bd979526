import { createHash } from 'node:crypto';
import type { SeededIds } from '../../../net/seeded-ids.js';
import type { HarnessProfile } from '../harnesses.js';
import type { StreamMutator } from './mutations.js';
import type { CompiledPolicy } from './policies.js';
import { SessionStream } from './session-stream.js';

/** An item as the server stores it; the snapshot shows this nested form. */
export interface StoredItem {
  id: string;
  type: string;
  status: string;
  response_id: string | null;
  created_at: number;
  created_by: string | null;
  data: Record<string, unknown>;
}

export interface StoredPolicy {
  id: string;
  name: string;
  handler: string;
  factory_params: Record<string, unknown>;
  compiled: CompiledPolicy;
  created_at: number;
}

export interface Terminal {
  id: string;
  name: string;
  sessionKey: string;
}

/** Hooks a running turn waits on: an interrupt, or an answer to an elicitation. */
export interface ActiveTurn {
  responseId: string;
  interrupted: boolean;
  wake: () => void;
  elicitations: Map<string, (action: string) => void>;
}

export interface Session {
  id: string;
  agentId: string;
  agentName: string;
  harness: HarnessProfile;
  hostId: string;
  workspace: string;
  status: 'idle' | 'running';
  createdAt: number;
  updatedAt: number;
  externalSessionId: string | null;
  items: StoredItem[];
  terminals: Terminal[];
  policies: StoredPolicy[];
  lastTotalTokens: number | null;
  totalCostUsd: number | null;
  stream: SessionStream;
  turn: ActiveTurn | undefined;
  pendingElicitations: Record<string, unknown>[];
}

/** Built-in agent ids are a hash of the name, as on the real server. */
export function agentIdFor(name: string): string {
  return createHash('sha256').update(name).digest('hex').slice(0, 32);
}

/** The flat item shape of `/items` and `response.output_item.done`: the data's fields spread, `created_by` only when set. */
export function flatItem(item: StoredItem): Record<string, unknown> {
  const { data, created_by, ...head } = item;
  return { ...head, ...data, ...(created_by !== null ? { created_by } : {}) };
}

export function newItem(ids: SeededIds, type: string, responseId: string | null, data: Record<string, unknown>): StoredItem {
  return { id: ids.hex(), type, status: 'completed', response_id: responseId, created_at: ids.now(), created_by: null, data };
}

export function newSession(ids: SeededIds, harness: HarnessProfile, hostId: string, workspace: string, mutator?: StreamMutator): Session {
  const now = ids.now();
  const agentName = `${harness.id}-ui`;
  return {
    id: ids.hex(),
    agentId: agentIdFor(agentName),
    agentName,
    harness,
    hostId,
    workspace,
    status: 'idle',
    createdAt: now,
    updatedAt: now,
    externalSessionId: null,
    items: [],
    terminals: [],
    policies: [],
    lastTotalTokens: null,
    totalCostUsd: null,
    stream: new SessionStream(mutator),
    turn: undefined,
    pendingElicitations: [],
  };
}

/** A terminal as the real server (0.19.1) shows it, on the stream, in items and in its route's answer; but for the tmux socket: the simulator runs no tmux. */
export function terminalResource(session: Session, t: Terminal): Record<string, unknown> {
  return {
    id: t.id,
    object: 'session.resource',
    type: 'terminal',
    session_id: session.id,
    name: `${t.name}:${t.sessionKey}`,
    metadata: { terminal_name: t.name, session_key: t.sessionKey, running: true, tmux_target: t.sessionKey },
    environment: `env_${t.id}`,
  };
}

/** The item the real server (0.19.1) stores for a resource event: the session's items list its terminal too. */
export function resourceEventItem(ids: SeededIds, session: Session, t: Terminal): StoredItem {
  return newItem(ids, 'resource_event', session.id, {
    event_type: 'session.resource.created',
    resource_id: t.id,
    resource_type: 'terminal',
    resource: terminalResource(session, t),
  });
}

/** The `SessionResponse` snapshot; items only when asked (the 100 most recent). */
export function snapshot(session: Session, includeItems: boolean): Record<string, unknown> {
  return {
    id: session.id,
    agent_id: session.agentId,
    agent_name: session.agentName,
    status: session.status,
    created_at: session.createdAt,
    updated_at: session.updatedAt,
    title: null,
    labels: {},
    harness: session.harness.id,
    host_id: session.hostId,
    runner_id: `runner_${session.id.slice(0, 24)}`,
    runner_online: true,
    host_online: true,
    workspace: session.workspace,
    external_session_id: session.externalSessionId,
    active_response_id: session.turn?.responseId ?? null,
    last_total_tokens: session.lastTotalTokens,
    total_cost_usd: session.totalCostUsd,
    pending_elicitations: session.pendingElicitations,
    pending_inputs: [],
    ...(includeItems ? { items: session.items.slice(-100) } : {}),
  };
}
