import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen } from '../../../net/listen.js';
import { SeededIds } from '../../../net/seeded-ids.js';
import { GatewayError, readBody, sendJson } from './errors.js';
import { OpenAiRoutes } from './openai-routes.js';
import { RoomGrants, type RoomPermission } from './rooms.js';
import { RunRoutes } from './run-routes.js';
import { RunStore } from './runs.js';
import { SessionRoutes } from './session-routes.js';

export interface HermesSimulatorOptions {
  seed?: number;
  /** The gateway's API key; requests must send `Authorization: Bearer <key>`. */
  apiKey?: string;
  port?: number;
  host?: string;
  /** `gateway.api_server.max_concurrent_runs`: 429 beyond it (default 10; 0 turns it off). */
  maxConcurrentRuns?: number;
}

export interface HermesSimulator {
  url: string;
  apiKey: string;
  /** How many times the scripted agent actually ran (an idempotent replay does not run it). */
  readonly agentRuns: number;
  close(): Promise<void>;
}

/** The default key: long enough for the real gateway's start-up guard, and not a placeholder. */
export const SIMULATOR_API_KEY = 'tapedeck-hermes-simulator-key-0001';

type Caller = { kind: 'key' } | { kind: 'room'; grant: string };

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * A Hermes gateway simulator on 127.0.0.1 (hermes-gateway-api.md), driven by a
 * deterministic scripted agent: Bearer and HermesRoom auth, the error
 * envelope, the `/p/{profile}` prefix, chat completions and Responses (JSON and
 * SSE), runs with durable idempotency, events, clarify and approval answers
 * fenced by execution_generation, stop, sessions and the session chat stream.
 */
export async function startHermesSimulator(options: HermesSimulatorOptions = {}): Promise<HermesSimulator> {
  const ids = new SeededIds(options.seed ?? 1);
  const apiKey = options.apiKey ?? SIMULATOR_API_KEY;
  const runs = new RunStore(ids, options.maxConcurrentRuns ?? 10);
  const openai = new OpenAiRoutes(ids, () => runs.agentRuns++);
  const runRoutes = new RunRoutes(runs);
  const sessions = new SessionRoutes(runs, ids);
  const rooms = new RoomGrants(ids);

  /** Who is calling: the API key anywhere; a room grant only on run routes, with the permission the route needs. */
  function authorize(req: IncomingMessage, roomPermission: RoomPermission | undefined): Caller {
    const header = req.headers.authorization ?? '';
    const room = /^hermesroom\s+(\S+)$/i.exec(header);
    if (room && roomPermission) return { kind: 'room', grant: rooms.check(room[1] as string, roomPermission) };
    const bearer = /^Bearer\s+(\S+)$/.exec(header);
    if (bearer && sameSecret(bearer[1] as string, apiKey)) return { kind: 'key' };
    throw new GatewayError(401, 'gateway_auth_failed', 'Invalid gateway API key (API_SERVER_KEY)');
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://gateway.invalid');
    // Every route is also mounted under /p/{profile}; runs stay within their profile.
    const prefixed = /^\/p\/([a-z0-9_-]+)(\/.*)$/.exec(url.pathname);
    const profile = prefixed ? (prefixed[1] as string) : 'default';
    const path = prefixed ? (prefixed[2] as string) : url.pathname;
    const method = req.method ?? 'GET';
    if (Number(req.headers['content-length'] ?? 0) > 10_000_000)
      throw new GatewayError(413, 'body_too_large', 'Request body is larger than 10000000 bytes');
    if (method === 'GET' && (path === '/health' || path === '/v1/health'))
      return sendJson(res, 200, { status: 'ok', platform: 'hermes-agent', version: 'simulator' });

    const runMatch = /^\/v1\/runs\/(run_[0-9a-f]+)(?:\/(events|clarify|approval|stop))?$/.exec(path);
    if (path === '/v1/runs' || runMatch) {
      const sub = runMatch?.[2];
      const permission: RoomPermission =
        path === '/v1/runs' ? 'dispatch' : sub === 'stop' ? 'stop' : sub === 'clarify' || sub === 'approval' ? 'approve' : 'status';
      const caller = authorize(req, permission);
      const grant = caller.kind === 'room' ? caller.grant : undefined;
      if (path === '/v1/runs' && method === 'POST') {
        const key = req.headers['idempotency-key'];
        return runRoutes.dispatch(
          await readBody(req),
          typeof key === 'string' ? key : undefined,
          { profile, ...(grant ? { grant } : {}) },
          res,
        );
      }
      if (runMatch) {
        const run = runs.get(runMatch[1] as string, profile);
        if (grant && run.grant !== grant) throw new GatewayError(404, 'run_not_found', `Run not found: ${run.id}`);
        if (method === 'GET' && sub === undefined) return runRoutes.status(run, res);
        if (method === 'GET' && sub === 'events') return runRoutes.events(run, res);
        if (method === 'POST' && (sub === 'clarify' || sub === 'approval')) return runRoutes.answer(run, sub, await readBody(req), res);
        if (method === 'POST' && sub === 'stop') return runRoutes.stop(run, res);
      }
    }
    if (path === '/v1/room-members/grants/revoke' && method === 'POST') {
      const token = /^hermesroom\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      if (!token) throw new GatewayError(401, 'invalid_room_grant', 'Revoking needs Authorization: HermesRoom <grant>');
      return sendJson(res, 200, rooms.revoke(token));
    }

    authorize(req, undefined);
    if (method === 'GET' && path === '/health/detailed')
      return sendJson(res, 200, {
        status: 'ok',
        platform: 'hermes-agent',
        version: 'simulator',
        api_server: {
          active_runs: [...runs.runs.values()].filter((r) => r.status === 'running').length,
          stored_runs: runs.runs.size,
          agent_runs: runs.agentRuns,
        },
      });
    if (method === 'POST' && path === '/v1/chat/completions') return openai.chatCompletions(await readBody(req), res);
    if (method === 'POST' && path === '/v1/responses') return openai.responses(await readBody(req), req.headers, res);
    if (method === 'POST' && path === '/v1/room-members/invitations') return sendJson(res, 201, rooms.invite(await readBody(req)));
    if (method === 'POST' && path === '/api/sessions') return sessions.create(await readBody(req), res);
    const chat = /^\/api\/sessions\/([^/]+)\/chat\/stream$/.exec(path);
    if (method === 'POST' && chat) return sessions.chatStream(decodeURIComponent(chat[1] as string), profile, await readBody(req), res);
    throw new GatewayError(404, 'not_found', `No route for ${method} ${path}`);
  }

  const server = createServer((req, res) => {
    // No Date header: recordings of one seed stay identical.
    res.sendDate = false;
    route(req, res).catch((err: unknown) => {
      const e = err instanceof GatewayError ? err : new GatewayError(500, 'server_error', (err as Error).message);
      if (res.headersSent) return res.end();
      sendJson(res, e.status, e.envelope(), e.headers);
    });
  });
  const { url } = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    url,
    apiKey,
    get agentRuns() {
      return runs.agentRuns;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const run of runs.runs.values()) run.stop();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
