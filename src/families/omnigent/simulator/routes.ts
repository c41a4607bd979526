import type { IncomingMessage, ServerResponse } from 'node:http';
import { routeTemplate } from '../../../net/route-template.js';
import type { SeededIds } from '../../../net/seeded-ids.js';
import { HARNESS_PROFILES, type HarnessProfile } from '../harnesses.js';
import { ApiError, appError, detailError, paginate, readJson, sendJson, validationError } from './http.js';
import type { StreamMutator } from './mutations.js';
import { CEL_HANDLER, compileCel } from './policies.js';
import { agentIdFor, flatItem, newSession, resourceEventItem, type Session, snapshot, terminalResource } from './state.js';
import { runNativeTurn } from './turn.js';

export interface SimulatorContext {
  ids: SeededIds;
  stepMs: number;
  hostId: string;
  /** How each harness behaves here; by default as it declares. */
  behaviour: Map<string, HarnessProfile>;
  /** Harnesses whose terminal reports the policy hook disabled, with the reason. */
  policyHookDisabled: Map<string, string>;
  sessions: Map<string, Session>;
  turns: Set<Promise<void>>;
  /** Server changes to emulate (drift tests); none by default. */
  mutator: StreamMutator;
  /** How long a turn takes to park on an elicitation it published (see `OmnigentSimulatorOptions`). */
  parkAfterAskMs: number;
}

const HEX32 = /^[0-9a-f]{32}$/;
const nativeHarnesses = () => HARNESS_PROFILES.filter((h) => h.integrationMode !== 'sdk');

/** The built-in `<harness>-ui` agents, one per native harness. */
function agents() {
  return nativeHarnesses().map((h) => {
    const name = `${h.id}-ui`;
    return {
      id: agentIdFor(name),
      object: 'agent',
      name,
      version: 1,
      description: `Native ${h.id} terminal agent`,
      created_at: 1_787_000_000,
      // The real server (0.19.1) leaves an auto-registered agent's updated_at null.
      updated_at: null,
      harness: h.id,
      mcp_servers: [],
      mcp_servers_editable: false,
      skills: [],
      terminals: [],
      policies: [],
      builtin: true,
    };
  });
}

function findSession(ctx: SimulatorContext, id: string): Session {
  if (!HEX32.test(id)) throw appError('not_found', `Session ${id} not found`);
  const session = ctx.sessions.get(id);
  if (!session) throw appError('not_found', `Session ${id} not found`);
  return session;
}

function str(body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  return typeof v === 'string' ? v : undefined;
}

async function createSession(ctx: SimulatorContext, req: IncomingMessage, res: ServerResponse) {
  const body = await readJson(req);
  const agentId = str(body, 'agent_id');
  if (agentId === undefined) throw validationError('agent_id', body);
  const agent = agents().find((a) => a.id === agentId);
  if (!agent) throw appError('not_found', `Agent ${agentId} not found`);
  const hostId = str(body, 'host_id');
  const workspace = str(body, 'workspace');
  if (hostId !== undefined && workspace === undefined) throw appError('invalid_input', 'workspace is required with host_id');
  if (hostId !== undefined && hostId !== ctx.hostId) throw detailError(404, 'Host not found');
  const harness = ctx.behaviour.get(agent.harness);
  if (!harness) throw appError('invalid_input', `harness ${agent.harness} is not configured`);
  const session = newSession(ctx.ids, harness, hostId ?? ctx.hostId, workspace ?? '', ctx.mutator);
  ctx.sessions.set(session.id, session);
  sendJson(res, 201, snapshot(session, true));
}

async function postEvent(ctx: SimulatorContext, session: Session, req: IncomingMessage, res: ServerResponse) {
  const body = await readJson(req);
  const type = str(body, 'type');
  const data = (body.data ?? {}) as Record<string, unknown>;
  if (type === 'message') {
    const content = Array.isArray(data.content) ? data.content : [];
    const text = content.map((c) => (c as { text?: string }).text ?? '').join('');
    if (data.role !== 'user' || text === '') throw appError('invalid_input', 'message data needs role "user" and input_text content');
    if (session.turn) throw appError('conflict', 'Session is already processing a turn');
    const pendingId = `pending_${ctx.ids.hex()}`;
    sendJson(res, 202, { queued: true, pending_id: pendingId });
    const turn = runNativeTurn(session, text, pendingId, {
      ids: ctx.ids,
      stepMs: ctx.stepMs,
      policyHookDisabled: ctx.policyHookDisabled.has(session.harness.id),
      parkAfterAskMs: ctx.parkAfterAskMs,
    });
    ctx.turns.add(turn);
    turn.finally(() => ctx.turns.delete(turn));
    return;
  }
  if (type === 'interrupt') {
    // The route publishes the interruption at once, before the harness reacts.
    session.stream.publish('session.interrupted', { data: { requested_at: ctx.ids.now(), response_id: null } });
    if (session.turn) {
      session.turn.interrupted = true;
      session.turn.wake();
    }
    sendJson(res, 202, { queued: false });
    return;
  }
  if (type === 'approval') {
    const elicitationId = str(data, 'elicitation_id');
    const action = str(data, 'action');
    if (!elicitationId || !action) throw appError('invalid_input', 'approval needs data.elicitation_id and data.action');
    const resolve = session.turn?.elicitations.get(elicitationId);
    if (resolve) resolve(action);
    else if (session.pendingElicitations.some((e) => e.elicitation_id === elicitationId)) {
      // Published, not yet parked on: the route echoes the verdict, and nothing takes it.
      session.stream.publish('response.elicitation_resolved', { elicitation_id: elicitationId, action, reason: null });
    } else throw appError('not_found', `Elicitation ${elicitationId} not found`);
    sendJson(res, 202, { queued: false });
    return;
  }
  throw appError('invalid_input', `Unsupported event type: ${type ?? '(missing)'}`);
}

async function policies(ctx: SimulatorContext, session: Session, req: IncomingMessage, res: ServerResponse, policyId?: string) {
  if (req.method === 'DELETE' && policyId) {
    session.policies = session.policies.filter((p) => p.id !== policyId);
    // The real server (0.19.1) answers a policy's deletion with this alone.
    return sendJson(res, 200, { deleted: true });
  }
  const view = (p: Session['policies'][number]) => ({
    id: p.id,
    object: 'session.policy',
    name: p.name,
    type: 'python',
    handler: p.handler,
    enabled: true,
    source: 'session',
    created_at: p.created_at,
    updated_at: null,
    factory_params: p.factory_params,
  });
  if (req.method === 'GET') return sendJson(res, 200, { object: 'list', data: session.policies.map(view) });
  const body = await readJson(req);
  const name = str(body, 'name');
  const handler = str(body, 'handler');
  if (!name) throw validationError('name', body);
  if (handler !== CEL_HANDLER) throw appError('invalid_input', `handler ${handler} is not in the policy registry`);
  if (session.policies.some((p) => p.name === name)) throw appError('already_exists', `Policy ${name} already exists`);
  const params = (body.factory_params ?? {}) as Record<string, unknown>;
  const compiled = compileCel(str(params, 'expression') ?? '');
  if (typeof compiled === 'string') throw appError('invalid_input', compiled);
  const policy = { id: ctx.ids.hex(), name, handler, factory_params: params, compiled, created_at: ctx.ids.now() };
  session.policies.push(policy);
  sendJson(res, 200, view(policy));
}

async function ensureTerminal(ctx: SimulatorContext, session: Session, req: IncomingMessage, res: ServerResponse) {
  const body = await readJson(req);
  const name = str(body, 'terminal');
  if (!name) throw validationError('terminal', body);
  const sessionKey = str(body, 'session_key') ?? 'main';
  let terminal = session.terminals.find((t) => t.name === name);
  if (!terminal) {
    // Named as the real server (0.19.1) names it: `terminal_<terminal>_<session key>`.
    terminal = { id: `terminal_${name}_${sessionKey}`, name, sessionKey };
    session.terminals.push(terminal);
    session.items.push(resourceEventItem(ctx.ids, session, terminal));
    session.stream.publish('session.resource.created', { resource: terminalResource(session, terminal) });
  }
  // A thread-at-launch vendor has its chat id as soon as the TUI is up.
  if (body.ensure_native_terminal === true && !session.harness.lazyChat) session.externalSessionId ??= `thread_${ctx.ids.hex(16)}`;
  const disabled = ctx.policyHookDisabled.get(session.harness.id);
  sendJson(res, 200, {
    ...terminalResource(session, terminal),
    ...(disabled ? { policy_hook_disabled_reason: disabled } : {}),
  });
}

function stream(session: Session, res: ServerResponse) {
  session.stream.subscribe(res, [
    ['session.heartbeat', { server_time: null }],
    ...session.terminals.map((t): [string, Record<string, unknown>] => [
      'session.resource.created',
      { resource: terminalResource(session, t) },
    ]),
    ['session.changed_files.invalidated', { session_id: session.id, environment_id: 'default' }],
    ['session.presence', { conversation_id: session.id, viewers: [] }],
  ]);
}

/** Routes one request of the session API. */
export async function route(ctx: SimulatorContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://simulator');
  const parts = url.pathname.split('/').filter(Boolean);
  const method = req.method ?? 'GET';
  const template = routeTemplate(method, url.pathname);
  const override = ctx.mutator.statusFor(template);
  const rewrite = ctx.mutator.bodyFor(template);
  if (rewrite !== undefined) {
    // The body changes after sendJson measured it: the length goes, so the response is chunked.
    const writeHead = res.writeHead.bind(res) as (status: number, headers?: Record<string, string>) => ServerResponse;
    const end = res.end.bind(res) as (chunk?: string) => ServerResponse;
    res.writeHead = ((status: number, headers: Record<string, string> = {}) => {
      const { 'content-length': _length, ...rest } = headers;
      return writeHead(status, rest);
    }) as typeof res.writeHead;
    res.end = ((chunk?: string) => {
      if (rewrite === null || typeof chunk !== 'string') return end();
      return end(JSON.stringify(rewrite(JSON.parse(chunk))));
    }) as typeof res.end;
  }
  if (override !== undefined) {
    const writeHead = res.writeHead.bind(res) as (status: number, ...rest: unknown[]) => ServerResponse;
    res.writeHead = ((_status: number, ...rest: unknown[]) => writeHead(override, ...rest)) as typeof res.writeHead;
  }
  try {
    if (method === 'GET' && url.pathname === '/health') return sendJson(res, 200, { status: 'ok' });
    if (method === 'GET' && url.pathname === '/v1/hosts') {
      // As the real server (0.19.1) reports them: each harness with true, or why it cannot run.
      const configured = Object.fromEntries(nativeHarnesses().map((h) => [h.id, true]));
      return sendJson(res, 200, {
        hosts: [
          {
            host_id: ctx.hostId,
            name: 'tapedeck-simulator',
            owner: 'local',
            status: 'online',
            sandbox_provider: null,
            configured_harnesses: configured,
            gateway_inference: null,
          },
        ],
      });
    }
    if (method === 'GET' && url.pathname === '/v1/agents') return sendJson(res, 200, paginate(agents(), url.searchParams, 20));
    if (method === 'GET' && url.pathname === '/v1/harnesses') {
      return sendJson(res, 200, { object: 'list', data: HARNESS_PROFILES.map((h) => ({ name: h.id, capabilities: h })) });
    }
    if (parts[0] === 'v1' && parts[1] === 'sessions') {
      if (parts.length === 2 && method === 'POST') return await createSession(ctx, req, res);
      const session = findSession(ctx, parts[2] ?? '');
      const rest = parts.slice(3).join('/');
      if (rest === '' && method === 'DELETE') {
        // Deleting a session ends its streams normally, with [DONE].
        ctx.sessions.delete(session.id);
        session.stream.close();
        return sendJson(res, 200, { id: session.id, object: 'conversation.deleted', deleted: true });
      }
      if (rest === '' && method === 'GET') {
        return sendJson(res, 200, snapshot(session, url.searchParams.get('include_items') !== 'false'), { 'cache-control': 'no-store' });
      }
      if (rest === 'items' && method === 'GET') return sendJson(res, 200, paginate(session.items, url.searchParams, 100, flatItem));
      if (rest === 'events' && method === 'POST') return await postEvent(ctx, session, req, res);
      if (rest === 'stream' && method === 'GET') return stream(session, res);
      if (parts[3] === 'policies' && parts.length <= 5) return await policies(ctx, session, req, res, parts[4]);
      if (rest === 'resources/terminals' && method === 'POST') return await ensureTerminal(ctx, session, req, res);
    }
    throw detailError(404, 'Not Found');
  } catch (err) {
    if (err instanceof ApiError) return sendJson(res, err.status, err.body);
    sendJson(res, 500, { error: { code: 'internal_error', message: (err as Error).message } });
  }
}
