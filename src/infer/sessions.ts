import { jsonRpcSessions } from '../contracts/index.js';
import type { LearnedStream, Recording } from './recordings.js';

// Headers every server sets, whose values repeat by chance: never a session's id.
const ORDINARY = new Set([
  'date',
  'content-type',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'server',
  'etag',
  'vary',
  'cache-control',
]);

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * The header that makes interactions one session (MCP's `mcp-session-id`): a server issued its value in a
 * response, and the client sent it back on later requests. Undefined when no recording shows one.
 */
export function sessionHeader(recordings: readonly Recording[]): string | undefined {
  const counts = new Map<string, number>();
  for (const { cassette } of recordings) {
    const interactions = cassette.interactions;
    for (const [n, i] of interactions.entries())
      for (const [name, value] of Object.entries(i.response?.headers ?? {})) {
        const lower = name.toLowerCase();
        const v = first(value);
        if (ORDINARY.has(lower) || v === undefined || v.length < 8) continue;
        if (interactions.slice(n + 1).some((later) => first(later.request.headers[lower] ?? later.request.headers[name]) === v))
          counts.set(lower, (counts.get(lower) ?? 0) + 1);
      }
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
}

/** Each JSON-RPC session of the recordings as one stream of both sides' messages, as a session pack checks it. */
export function sessionStreams(recordings: readonly Recording[], header: string): LearnedStream[] {
  return recordings.flatMap(({ name, cassette }) =>
    jsonRpcSessions(cassette, { header }).map((s) => ({
      where: `${name} #${s.first.seq}`,
      recording: name,
      route: 'session',
      events: s.events,
      turns: [],
      complete: true,
    })),
  );
}
