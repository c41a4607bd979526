import { type Candidate, candidate } from './candidate.js';
import type { KeyedStream } from './keyed-events.js';
import { scalarLeaves } from './leaves.js';

const REQUEST = 'client:*[id][method]';

type Message = { jsonrpc?: unknown; id?: unknown; method?: unknown };
const message = (data: unknown): Message | undefined =>
  data !== null && typeof data === 'object' && (data as Message).jsonrpc === '2.0' ? (data as Message) : undefined;

/**
 * Client notifications that call off a request by naming its id in a field (`notifications/cancelled` with
 * `params.requestId`): each type with the path that holds the id, found where it named a request not yet answered.
 */
function cancellations(streams: readonly KeyedStream[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const s of streams) {
    const open = new Set<string>();
    for (const e of s.events) {
      const m = message(e.data);
      if (!m) continue;
      if (e.type.startsWith('client:') && typeof m.method === 'string' && m.id !== undefined) open.add(JSON.stringify(m.id));
      else if (e.type === 'response') open.delete(JSON.stringify(m.id));
      else if (e.type.startsWith('client:') && m.id === undefined && !found.has(e.type))
        for (const [path, v] of scalarLeaves(e.data))
          if (path.startsWith('params.') && open.has(JSON.stringify(v))) found.set(e.type, path);
    }
  }
  return found;
}

/**
 * What JSON-RPC itself says of a session, where its messages are the events (MCP): a response answers a request the
 * client sent, at most once, and every request is answered or, where the recordings show how, called off.
 */
export function jsonRpcCandidates(streams: readonly KeyedStream[]): Candidate[] {
  let requests = 0;
  let responses = 0;
  let first = '';
  for (const s of streams)
    for (const e of s.events) {
      const m = message(e.data);
      if (!m || m.id === undefined) continue;
      if (e.type === 'response') responses++;
      else if (e.type.startsWith('client:') && typeof m.method === 'string') {
        requests++;
        if (first === '') first = s.where;
      }
    }
  if (requests === 0 || responses === 0) return [];
  const evidence = (support: number) => ({ support, unit: 'keys', streams: streams.length, first });
  const cancel = [...cancellations(streams)].sort((a, b) => a[0].localeCompare(b[0]));
  const ends = ['response', ...cancel.map(([type]) => type)].join('|');
  const by = ['id', ...cancel.map(([, path]) => path)].join('|');
  return [
    candidate(
      {
        kind: 'precedes',
        description: 'a response answers a request the client sent',
        scope: 'stream',
        by: 'id',
        earlier: REQUEST,
        later: 'response',
      },
      evidence(responses),
    ),
    candidate(
      { kind: 'atMostOne', description: 'a request is answered at most once', scope: 'stream', by: 'id', of: 'response' },
      evidence(responses),
    ),
    candidate(
      {
        kind: 'eventually',
        description: `every request is answered${cancel.length ? ' or called off' : ''}`,
        scope: 'stream',
        by,
        event: ends,
        after: REQUEST,
      },
      evidence(requests),
    ),
  ];
}
