import { compileSelector } from '../contracts/index.js';
import { scalarLeaves } from './leaves.js';
import type { LearnedStream } from './recordings.js';

// A field whose name says its values are a vocabulary: one type's events of each value are kinds of their own.
const VOCABULARY = /(^|\.)(status|state|role|kind|phase|finish_reason|stop_reason|reason|action|decision|outcome|level)$/i;
const VALUES_MAX = 6;

/**
 * A JSON-RPC message's kind, whatever event carries it (MCP's SSE events are all `message`): a request or a
 * notification by its method, a result, an error.
 */
function jsonRpcKinds(type: string, data: unknown): string[] {
  if (data === null || typeof data !== 'object' || (data as { jsonrpc?: unknown }).jsonrpc !== '2.0') return [];
  const m = data as { method?: unknown; result?: unknown; error?: unknown };
  // Where the type is the method already (a session's `client:tools/call`), the method says nothing more.
  if (typeof m.method === 'string')
    return type === m.method || type === `client:${m.method}` || /[\]|=]/.test(m.method) ? [] : [`${type}[method=${m.method}]`];
  return [...(m.result !== undefined ? [`${type}[result]`] : []), ...(m.error !== undefined ? [`${type}[error]`] : [])];
}

/** The labels of an event: its type, and each `type[path=value]` kind it is (a running tool's progress, the finish chunk). */
export type Labeller = (type: string, data: unknown) => string[];

/**
 * Kinds within a type, read from the recordings: a vocabulary field that some of the type's events lack or that
 * takes several values (`hermes.tool.progress[status=running]`, `chat.completion.chunk[choices.0.finish_reason=stop]`).
 */
export function labeller(streams: readonly LearnedStream[]): Labeller {
  const total = new Map<string, number>();
  const seen = new Map<string, Map<string, { count: number; values: Set<string> }>>();
  for (const s of streams)
    for (const e of s.events) {
      if (e.type === ':comment') continue;
      total.set(e.type, (total.get(e.type) ?? 0) + 1);
      const fields = seen.get(e.type) ?? new Map<string, { count: number; values: Set<string> }>();
      for (const [path, v] of scalarLeaves(e.data)) {
        if (typeof v !== 'string' || !VOCABULARY.test(path)) continue;
        const f = fields.get(path) ?? { count: 0, values: new Set<string>() };
        f.count++;
        f.values.add(v);
        fields.set(path, f);
      }
      seen.set(e.type, fields);
    }
  const refined = new Map<string, string[]>();
  for (const [type, fields] of seen)
    for (const [path, f] of [...fields].sort((a, b) => a[0].localeCompare(b[0]))) {
      if (f.values.size > VALUES_MAX || (f.values.size < 2 && f.count === total.get(type))) continue;
      const values = [...f.values].filter((v) => !/[\]|]/.test(v)).sort();
      refined.set(type, [...(refined.get(type) ?? []), ...values.map((v) => `${type}[${path}=${v}]`)]);
    }
  return (type, data) => {
    const kinds = refined.get(type);
    const own = kinds ? kinds.filter((sel) => compileSelector(sel).matches({ type, data })) : [];
    return [type, ...own, ...jsonRpcKinds(type, data)];
  };
}
