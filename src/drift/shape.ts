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

/** Adds what one value shows of its shape: `a.b`, and `a[].c` for array elements. */
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
  }
}
