import { embeddedJson, isKeyName } from '../contracts/index.js';

type JsonType = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

/** What every value seen at one place of a payload showed: its types, fields, items, strings. */
export interface Seen {
  count: number;
  types: Set<JsonType>;
  /** Field -> what it held, and in how many of the objects seen here it was present. */
  fields: Map<string, { seen: Seen; present: number }>;
  objects: number;
  items?: Seen;
  strings: Map<string, number>;
  /** More distinct strings than an enum could hold. */
  open: boolean;
  allUuid: boolean;
  allDateTime: boolean;
  /** Every string here held a JSON object or array: what those documents showed. */
  embedded?: Seen;
  allEmbedded: boolean;
}

const ENUM_MAX = 8;
const DEPTH_MAX = 8;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
// A value an enum may hold: a short token (a status, a role, a kind), never text, a path or an id.
const TOKEN = /^[A-Za-z][A-Za-z0-9_.:/-]{0,39}$/;

const fresh = (): Seen => ({
  count: 0,
  types: new Set(),
  fields: new Map(),
  objects: 0,
  strings: new Map(),
  open: false,
  allUuid: true,
  allDateTime: true,
  allEmbedded: true,
});

const typeOf = (v: unknown): JsonType =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'object'
        ? 'object'
        : typeof v === 'number'
          ? 'number'
          : typeof v === 'boolean'
            ? 'boolean'
            : 'string';

function addString(seen: Seen, value: string, depth: number): void {
  if (!seen.open) {
    seen.strings.set(value, (seen.strings.get(value) ?? 0) + 1);
    if (seen.strings.size > ENUM_MAX || !TOKEN.test(value) || (value.match(/\d/g)?.length ?? 0) > 2) {
      seen.open = true;
      seen.strings.clear();
    }
  }
  if (!UUID.test(value)) seen.allUuid = false;
  if (!DATE_TIME.test(value)) seen.allDateTime = false;
  const inner = seen.allEmbedded ? embeddedJson(value) : undefined;
  if (inner === undefined) {
    seen.allEmbedded = false;
    delete seen.embedded;
  } else learn((seen.embedded ??= fresh()), inner, depth + 1);
}

/** Adds one value to what a place of the payload has shown. */
export function learn(seen: Seen, value: unknown, depth = 0): void {
  seen.count++;
  const type = typeOf(value);
  seen.types.add(type);
  if (depth > DEPTH_MAX) return;
  if (type === 'string') addString(seen, value as string, depth);
  else if (type === 'array') for (const item of value as unknown[]) learn((seen.items ??= fresh()), item, depth + 1);
  else if (type === 'object') {
    seen.objects++;
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      let field = seen.fields.get(key);
      if (!field) seen.fields.set(key, (field = { seen: fresh(), present: 0 }));
      field.present++;
      learn(field.seen, v, depth + 1);
    }
  }
}

/** A fresh record of what a payload showed. */
export const newSeen = fresh;

/**
 * The JSON Schema of what was seen: its types; an object's fields, those present every time required, others
 * optional, and no ban on fields no recording showed (a server adds fields; drift reports them); a string's
 * values as an enum when few short tokens were seen many times, a format every value fits (uuid, date-time),
 * or the JSON document every value held.
 */
export function toJsonSchema(seen: Seen, minSupport: number, name = ''): Record<string, unknown> {
  const types = [...seen.types].sort();
  const out: Record<string, unknown> = { type: types.length === 1 ? types[0] : types };
  if (seen.types.has('object') && seen.fields.size > 0) {
    const names = [...seen.fields.keys()].sort();
    out.properties = Object.fromEntries(names.map((n) => [n, toJsonSchema((seen.fields.get(n) as { seen: Seen }).seen, minSupport, n)]));
    const required = names.filter((n) => seen.fields.get(n)?.present === seen.objects);
    if (required.length > 0) out.required = required;
  }
  if (seen.types.has('array') && seen.items) out.items = toJsonSchema(seen.items, minSupport, name);
  if (types.length === 1 && types[0] === 'string') Object.assign(out, stringFacts(seen, minSupport, name));
  return out;
}

// Names that hold a vocabulary by what they are called: one value seen often is already one of a set.
const VOCABULARY_NAME =
  /^(status|state|type|kind|role|phase|mode|object|reason|finish_?reason|stop_?reason|level|severity|decision|outcome|action)$/i;

function stringFacts(seen: Seen, minSupport: number, name: string): Record<string, unknown> {
  if (seen.allEmbedded && seen.embedded)
    return { contentMediaType: 'application/json', contentSchema: toJsonSchema(seen.embedded, minSupport) };
  if (seen.count < minSupport) return {};
  // A model's or a server's name repeats too: only a named vocabulary, or several values each seen twice, is an enum.
  const vocabulary = (VOCABULARY_NAME.test(name) || seen.strings.size > 1) && !isKeyName(name);
  if (!seen.open && vocabulary && seen.strings.size > 0 && seen.count >= 2 * seen.strings.size)
    return { enum: [...seen.strings.keys()].sort() };
  if (seen.allUuid) return { format: 'uuid' };
  if (seen.allDateTime) return { format: 'date-time' };
  return {};
}
