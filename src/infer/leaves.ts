const LEAF_DEPTH = 4;

/**
 * The non-null scalar leaves of an object, by dot path, to a few levels: `properties.part.text`; of an array, its
 * first element's (`choices.0.delta.content`), as a selector reads it.
 */
export function scalarLeaves(
  value: unknown,
  path = '',
  depth = 0,
  out: [string, string | number | boolean][] = [],
): [string, string | number | boolean][] {
  if (value === null || typeof value !== 'object' || depth > LEAF_DEPTH) return out;
  for (const [k, v] of Array.isArray(value) ? value.slice(0, 1).map((x, i) => [String(i), x] as const) : Object.entries(value)) {
    const at = path === '' ? k : `${path}.${k}`;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out.push([at, v]);
    else scalarLeaves(v, at, depth + 1, out);
  }
  return out;
}

/** The string leaves of an object, by dot path. */
export const stringLeaves = (value: unknown): [string, string][] =>
  scalarLeaves(value).filter((l): l is [string, string] => typeof l[1] === 'string');
