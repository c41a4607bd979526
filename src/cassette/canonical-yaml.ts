/**
 * Writes cassettes in a small, canonical subset of YAML: block mappings and
 * sequences for structure, JSON-compatible flow values for leaves. Every file
 * this writes is ordinary YAML (any YAML reader loads it), and it is also
 * exactly what `readCanonicalYaml` parses without a general YAML parser.
 */

/**
 * Keys whose values are written as JSON flow collections, not block YAML:
 * bodies (arbitrary JSON), and small fixed maps that read best on one line.
 */
const FLOW_KEYS = new Set(['json', 'headers', 'trailers', 'timing']);
/** Keys whose children are free-form records: their keys are sorted, not ranked. */
const RECORD_KEYS = new Set(['headers', 'trailers', 'labels']);
/** Flow values up to this length stay on one line; longer ones are pretty-printed. */
const INLINE_FLOW_LIMIT = 100;
/** How many keys, and sets of keys, the writer remembers formatted and ordered. */
const MEMO_LIMIT = 1024;

const KEY_RANK = [
  'version',
  'meta',
  'recorder',
  'target',
  'recordedAt',
  'labels',
  'packs',
  'interactions',
  'seq',
  'request',
  'response',
  'failure',
  'timing',
  'start',
  'method',
  'path',
  'origin',
  'status',
  'headers',
  'body',
  'stream',
  'websocket',
  'at',
  'from',
  'after',
  'event',
  'id',
  'retry',
  'data',
  'comment',
  'events',
  'frames',
  'end',
  'error',
  'code',
  'message',
  'json',
  'text',
  'base64',
  'close',
];
const rankOf = new Map(KEY_RANK.map((k, i) => [k, i]));

function compareKeys(a: string, b: string): number {
  const ra = rankOf.get(a) ?? KEY_RANK.length;
  const rb = rankOf.get(b) ?? KEY_RANK.length;
  if (ra !== rb) return ra - rb;
  return a < b ? -1 : a > b ? 1 : 0;
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
// Words some YAML readers turn into booleans or null when unquoted.
const RESERVED_KEY = /^(?:y|n|yes|no|on|off|true|false|null)$/i;
// Characters YAML forbids raw inside quoted scalars, or that readers treat as line breaks.
const YAML_UNSAFE = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;
const NEEDS_DOUBLE_QUOTES = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;

function escapeUnsafe(json: string): string {
  return json.replace(YAML_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON text that is also valid YAML: JSON plus escapes for what YAML forbids raw. */
function yamlSafeJson(value: unknown, space?: number): string {
  return escapeUnsafe(JSON.stringify(value, null, space));
}

// The same few keys come back in every interaction: each is formatted once (a bounded memo, labels being free-form).
const formattedKeys = new Map<string, string>();

function formatKey(key: string): string {
  let formatted = formattedKeys.get(key);
  if (formatted === undefined) {
    formatted = PLAIN_KEY.test(key) && !RESERVED_KEY.test(key) ? key : yamlSafeJson(key);
    if (formattedKeys.size >= MEMO_LIMIT) formattedKeys.clear();
    formattedKeys.set(key, formatted);
  }
  return formatted;
}

/** A string as a quoted scalar: single quotes when that spares escaping JSON text. */
export function formatString(s: string): string {
  if (s.includes('"') && !NEEDS_DOUBLE_QUOTES.test(s) && s.isWellFormed()) {
    return `'${s.replaceAll("'", "''")}'`;
  }
  return yamlSafeJson(s);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isEmptyCollection(v: unknown): boolean {
  return Array.isArray(v) ? v.length === 0 : isPlainObject(v) && Object.keys(v).length === 0;
}

function formatScalar(v: unknown): string {
  if (typeof v === 'string') return formatString(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new TypeError(`cannot write non-finite number ${v}`);
    return JSON.stringify(v);
  }
  if (v === null || typeof v === 'boolean') return String(v);
  if (isEmptyCollection(v)) return Array.isArray(v) ? '[]' : '{}';
  throw new TypeError(`cannot write value of type ${typeof v}`);
}

/** Appends a flow (JSON) value; multi-line ones are indented under their key. */
function pushFlow(out: string[], head: string, value: unknown, indent: number): void {
  const oneLine = typeof value !== 'object' || value === null;
  const raw = JSON.stringify(value);
  // Escaping only lengthens a text: one too long as it is is never escaped for a line it will not go on.
  if (oneLine || raw.length <= INLINE_FLOW_LIMIT) {
    const compact = escapeUnsafe(raw);
    if (oneLine || compact.length <= INLINE_FLOW_LIMIT) {
      out.push(`${head}${compact}`);
      return;
    }
  }
  // JSON text holds a raw line break only between its lines (one inside a string is escaped): each one is indented.
  out.push(`${head}${yamlSafeJson(value, 2).replaceAll('\n', `\n${' '.repeat(indent + 2)}`)}`);
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
// Interactions repeat a few sets of keys (and of header names): each set is put in order once (a bounded memo).
const sortedKeySets = [new Map<string, string[]>(), new Map<string, string[]>()];

/** The object's keys in canonical order: ranked, or by name for a free-form record. */
function orderedKeys(obj: Record<string, unknown>, isRecord: boolean): string[] {
  const keys = Object.keys(obj);
  const memo = sortedKeySets[isRecord ? 1 : 0] as Map<string, string[]>;
  const set = keys.join('\n');
  let sorted = memo.get(set);
  // Joined, two different sets can read alike (a key may hold the separator): a remembered order serves only its own.
  if (sorted !== undefined && (sorted.length !== keys.length || !sorted.every((k) => Object.hasOwn(obj, k)))) sorted = undefined;
  if (sorted === undefined) {
    sorted = keys.sort(isRecord ? byName : compareKeys);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(set, sorted);
  }
  return sorted;
}

/** A copy of a small map with its keys in canonical order, for flow output. */
function orderedObject(value: unknown, isRecord: boolean): unknown {
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const k of orderedKeys(value, isRecord)) {
    const v = value[k];
    if (v === undefined) continue;
    // A header named `__proto__` is a key like any other here, never the copy's prototype.
    if (k === '__proto__') Object.defineProperty(copy, k, { value: v, enumerable: true, writable: true, configurable: true });
    else copy[k] = v;
  }
  return copy;
}

function pushMapping(out: string[], obj: Record<string, unknown>, indent: number, isRecord: boolean, firstPrefix?: string): void {
  const pad = ' '.repeat(indent);
  let first = true;
  for (const key of orderedKeys(obj, isRecord)) {
    const value = obj[key];
    if (value === undefined) continue;
    const head = `${first && firstPrefix !== undefined ? firstPrefix : pad}${formatKey(key)}:`;
    first = false;
    if (!isRecord && FLOW_KEYS.has(key)) {
      pushFlow(out, `${head} `, key === 'json' ? value : orderedObject(value, RECORD_KEYS.has(key)), indent);
    } else if (Array.isArray(value) && value.length > 0) {
      out.push(head);
      pushSequence(out, value, indent + 2);
    } else if (isPlainObject(value) && Object.keys(value).length > 0) {
      out.push(head);
      pushMapping(out, value, indent + 2, RECORD_KEYS.has(key));
    } else {
      out.push(`${head} ${formatScalar(value)}`);
    }
  }
}

function pushSequence(out: string[], items: unknown[], indent: number): void {
  const pad = ' '.repeat(indent);
  for (const item of items) {
    if (isPlainObject(item) && Object.keys(item).length > 0) {
      pushMapping(out, item, indent + 2, false, `${pad}- `);
    } else if (Array.isArray(item) && item.length > 0) {
      pushFlow(out, `${pad}- `, item, indent);
    } else {
      out.push(`${pad}- ${formatScalar(item)}`);
    }
  }
}

/**
 * The lines of one item of a top-level sequence, as `writeCanonicalYaml`
 * writes it under its key: a cassette can be written one interaction at a time.
 */
export function writeCanonicalYamlItem(item: Record<string, unknown>): string {
  const out: string[] = [];
  pushSequence(out, [item], 2);
  return `${out.join('\n')}\n`;
}

/**
 * Serialises a plain JSON-like value as canonical YAML: the same value always
 * gives the same bytes, whatever the insertion order of its structural keys.
 */
export function writeCanonicalYaml(value: Record<string, unknown>, header?: string): string {
  const out: string[] = [];
  if (header) for (const line of header.split('\n')) out.push(`# ${line}`);
  pushMapping(out, value, 0, false);
  return `${out.join('\n')}\n`;
}
