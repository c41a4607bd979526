import { embeddedJson } from '../contracts/index.js';

/** The JSON type of a value, as drift compares them. */
export type JsonType = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

/** Field path -> the types seen there, merged across every occurrence. */
export type Shape = Map<string, Set<JsonType>>;

export function jsonType(v: unknown): JsonType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  return t === 'object' ? 'object' : t === 'number' || t === 'bigint' ? 'number' : t === 'boolean' ? 'boolean' : 'string';
}

/** Adds what one value shows of its shape: `a.b`, `a[].c` for array elements, `a{}.c` inside JSON text. */
export function addToShape(shape: Shape, value: unknown, path = '', ignore?: (path: string) => boolean): void {
  if (path && ignore?.(path)) return;
  const type = jsonType(value);
  if (path) {
    let set = shape.get(path);
    if (!set) shape.set(path, (set = new Set()));
    set.add(type);
  }
  if (type === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) addToShape(shape, v, path ? `${path}.${k}` : k, ignore);
  } else if (type === 'array') {
    for (const v of value as unknown[]) addToShape(shape, v, `${path}[]`, ignore);
  } else if (type === 'string' && path) {
    const inner = embeddedJson(value as string);
    if (inner) addToShape(shape, inner, `${path}{}`, ignore);
  }
}

/** How many occurrences (events of a type, bodies of a route) there were, and in how many each field was present. */
export interface Occurrences {
  count: number;
  paths: Map<string, number>;
}

function presentPaths(value: unknown, path: string, ignore: ((path: string) => boolean) | undefined, out: Set<string>): void {
  if (path && ignore?.(path)) return;
  if (path) out.add(path);
  if (Array.isArray(value)) for (const v of value) presentPaths(v, `${path}[]`, ignore, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) presentPaths(v, path ? `${path}.${k}` : k, ignore, out);
  else if (typeof value === 'string' && path) {
    const inner = embeddedJson(value);
    if (inner) presentPaths(inner, `${path}{}`, ignore, out);
  }
}

/** Counts one occurrence and every field path present in it (once per occurrence). */
export function recordOccurrence(occurrences: Occurrences, value: unknown, ignore?: (path: string) => boolean): void {
  occurrences.count++;
  const paths = new Set<string>();
  presentPaths(value, '', ignore, paths);
  for (const p of paths) occurrences.paths.set(p, (occurrences.paths.get(p) ?? 0) + 1);
}

/** Field path -> the string values seen there, with counts (at most `VALUES_KEPT` distinct; past that, `open`). */
export type Values = Map<string, { values: Map<string, number>; open: boolean }>;
const VALUES_KEPT = 16;

/** Records the string values of one occurrence, per field path. */
export function recordValues(values: Values, value: unknown, ignore?: (path: string) => boolean, path = ''): void {
  if (path && ignore?.(path)) return;
  if (typeof value === 'string' && path) {
    const inner = embeddedJson(value);
    if (inner) {
      recordValues(values, inner, ignore, `${path}{}`);
      return;
    }
    let v = values.get(path);
    if (!v) values.set(path, (v = { values: new Map(), open: false }));
    if (v.open) return;
    v.values.set(value, (v.values.get(value) ?? 0) + 1);
    if (v.values.size > VALUES_KEPT) {
      v.open = true;
      v.values.clear();
    }
  } else if (Array.isArray(value)) for (const x of value) recordValues(values, x, ignore, `${path}[]`);
  else if (value && typeof value === 'object')
    for (const [k, x] of Object.entries(value)) recordValues(values, x, ignore, path ? `${path}.${k}` : k);
}
