/** One event as the checker sees it. */
export interface CheckedEvent {
  type: string;
  data: unknown;
  /** Present when the SSE frame carried them. */
  id?: string | undefined;
  retry?: number | undefined;
  comment?: string | undefined;
}

export interface Selector {
  matches(e: CheckedEvent): boolean;
}

// A rule reads the same few paths on every event: split each once, not once per event.
const pathParts = new Map<string, readonly string[]>();

/** The value at a dot path (`item.id`, `choices.0.finish_reason`) of an event's data. */
export function valueAt(data: unknown, path: string): unknown {
  let parts = pathParts.get(path);
  if (parts === undefined) pathParts.set(path, (parts = path.split('.')));
  let cur = data;
  for (let i = 0; i < parts.length; i++) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[parts[i] as string];
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

/** Compiles `type`, `type[path=value]`, `type[path]` (the field is there and not null) or `*`. */
export function compileSelector(text: string): Selector {
  const hit = cache.get(text);
  if (hit) return hit;
  const m = /^(\[DONE\]|[^[\]]+)(?:\[([^=\]]+)(?:=([^\]]*))?\])?$/.exec(text);
  if (!m) throw new TypeError(`bad event selector ${JSON.stringify(text)}: use type, type[field=value], type[field] or *`);
  const type = m[1] as string;
  const path = m[2];
  const value = m[3];
  const fieldMatches = (data: unknown) => {
    if (path === undefined) return true;
    const at = valueAt(data, path);
    return value === undefined ? at !== undefined && at !== null : String(at) === value;
  };
  const selector: Selector = { matches: (e) => (type === '*' || e.type === type) && fieldMatches(e.data) };
  cache.set(text, selector);
  return selector;
}

export const anyOf = (texts: string[]): Selector => {
  const compiled = texts.map(compileSelector);
  return { matches: (e) => compiled.some((s) => s.matches(e)) };
};
