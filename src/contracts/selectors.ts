import { embeddedJson } from './embedded-json.js';

/** One event as the checker sees it. */
export interface CheckedEvent {
  type: string;
  data: unknown;
  /** Present when the SSE frame carried them. */
  id?: string | undefined;
  retry?: number | undefined;
  comment?: string | undefined;
  /** A JSON-RPC request the server refused as invalid: its payload schema is not checked. */
  refused?: boolean | undefined;
}

export interface Selector {
  matches(e: CheckedEvent): boolean;
}

// A rule reads the same few paths on every event: split each once, not once per event.
const pathParts = new Map<string, readonly string[]>();

/**
 * The value at a dot path (`item.id`, `choices.0.finish_reason`) of an event's data; `name{}` reads the JSON
 * document a string field holds (`content{}.temp`).
 */
export function valueAt(data: unknown, path: string): unknown {
  let parts = pathParts.get(path);
  if (parts === undefined) pathParts.set(path, (parts = path.split('.')));
  let cur = data;
  for (let i = 0; i < parts.length; i++) {
    if (cur === null || typeof cur !== 'object') return undefined;
    const part = parts[i] as string;
    if (!part.endsWith('{}')) {
      cur = (cur as Record<string, unknown>)[part];
      continue;
    }
    const text = (cur as Record<string, unknown>)[part.slice(0, -2)];
    cur = typeof text === 'string' ? embeddedJson(text) : undefined;
  }
  return cur;
}

/** The value at the first of `a|b|…` that the data has: codex puts a turn's id in `turnId` or `turn.id`. */
export function valueAtAny(data: unknown, paths: readonly string[]): unknown {
  for (const path of paths) {
    const v = valueAt(data, path);
    if (v !== undefined) return v;
  }
  return undefined;
}

const cache = new Map<string, Selector>();

/** Whether a type is one of these: each exact, `*` (any), or a prefix ending in `*`. */
function anyType(types: readonly string[]): (t: string) => boolean {
  if (types.includes('*')) return () => true;
  const exact = new Set(types.filter((t) => !t.endsWith('*')));
  const prefixes = types.filter((t) => t.endsWith('*')).map((t) => t.slice(0, -1));
  return (t) => exact.has(t) || prefixes.some((p) => t.startsWith(p));
}

const SELECTOR = /^(\[DONE\]|[^[\]]+)((?:\[[^=\]]+(?:=[^\]]*)?\])*)$/;

/**
 * Compiles `type`, `type[path=value]`, `type[path=a|b]` (either value), `type[path]` (the field is there and not
 * null), several conditions (`type[id][method]`: all hold), `*`, a type prefix (`client:*`), or types (`a|b`).
 */
export function compileSelector(text: string): Selector {
  const hit = cache.get(text);
  if (hit) return hit;
  const m = SELECTOR.exec(text);
  if (!m) throw new TypeError(`bad event selector ${JSON.stringify(text)}: use type, type[field=value], type[field] or *`);
  const type = m[1] as string;
  const conditions = [...(m[2] as string).matchAll(/\[([^=\]]+)(?:=([^\]]*))?\]/g)].map(([, path, value]) => ({
    path: path as string,
    values: value === undefined ? undefined : value.split('|'),
  }));
  const fieldsMatch = (data: unknown) =>
    conditions.every(({ path, values }) => {
      const at = valueAt(data, path);
      return values === undefined ? at !== undefined && at !== null : values.includes(String(at));
    });
  const typeMatches = anyType(type === '[DONE]' ? [type] : type.split('|'));
  const selector: Selector = { matches: (e) => typeMatches(e.type) && fieldsMatch(e.data) };
  cache.set(text, selector);
  return selector;
}

export const anyOf = (texts: string[]): Selector => {
  const compiled = texts.map(compileSelector);
  return { matches: (e) => compiled.some((s) => s.matches(e)) };
};
