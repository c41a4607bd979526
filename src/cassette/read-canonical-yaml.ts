/**
 * A fast reader for the YAML subset `writeCanonicalYaml` produces, and for
 * the same structure with the plain scalars other YAML libraries write. It
 * returns `undefined` as soon as the text leaves that subset (a comment after
 * a value, an anchor, a block scalar), and the caller falls back to a full
 * YAML parser. On what it reads it returns exactly what a full parser would.
 */

type Container = Record<string, unknown> | unknown[];

interface Frame {
  indent: number;
  value: Container;
  /** Key of a mapping entry whose value is the block that follows. */
  pendingKey?: string | undefined;
}

const NOT_CANONICAL = Symbol('not canonical');
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const RESERVED_KEY = /^(?:y|n|yes|no|on|off|true|false|null)$/i;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * A string cut from the file text, as a copy of its own: V8 keeps a slice of
 * 13 characters or more as a view on the whole text, which would then live as
 * long as any value of the cassette. The concatenation is flattened into a
 * fresh string before it is cut.
 */
const own = (s: string): string => (s.length < 13 ? s : (' ' + s).slice(1));

/** Sets an own property, `__proto__` included (as JSON.parse does), never the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_CANONICAL;
  }
}

function parseScalar(v: string): unknown {
  const c = v.charCodeAt(0);
  if (c === 34 /* " */) {
    if (v.length > 1 && v.charCodeAt(v.length - 1) === 34 && !v.includes('\\', 1)) {
      const inner = v.slice(1, -1);
      return inner.includes('"') ? NOT_CANONICAL : own(inner);
    }
    return parseJson(v);
  }
  if (c === 39 /* ' */) {
    if (v.length < 2 || v.charCodeAt(v.length - 1) !== 39) return NOT_CANONICAL;
    const inner = v.slice(1, -1);
    if (!inner.includes("'")) return own(inner);
    if (inner.replaceAll("''", '').includes("'")) return NOT_CANONICAL;
    return inner.replaceAll("''", "'");
  }
  if (c === 123 /* { */ || c === 91 /* [ */) return parseJson(v);
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (v === 'null') return null;
  if (JSON_NUMBER.test(v)) return Number(v);
  return plainScalar(v);
}

/** Words the YAML 1.2 core schema reads as null or a boolean in any spelling but the canonical one. */
const CORE_WORDS = /^(?:Null|NULL|True|TRUE|False|FALSE)$/;
/** The core schema's implicit integers and floats in every notation, JSON's included (as js-yaml resolves them). */
const CORE_NUMBER = /^(?:0o[0-7]+|0x[0-9a-fA-F]+|[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|[-+]?\.[0-9]+(?:[eE][-+]?[0-9]+)?)$/;
/** No control character, no byte-order mark: what a plain scalar may hold here. */
const PLAIN_CHARS = /^[^\x00-\x1f\x7f-\x9f\ufeff]*$/;

/**
 * A plain (unquoted) scalar, as YAML libraries write strings that need no
 * quotes: read only where the core schema leaves no doubt that it is that
 * very string (js-yaml, the fallback, reads it the same); anything else, such
 * as a number in another notation, a comment or a continued line, declines.
 */
function plainScalar(v: string): unknown {
  const c = v.charCodeAt(0);
  const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 47 /* / */ || c === 95; /* _ */
  const digit = c >= 48 && c <= 57;
  if (!letter && !digit) return NOT_CANONICAL;
  if (letter ? CORE_WORDS.test(v) : CORE_NUMBER.test(v)) return NOT_CANONICAL;
  const last = v.charCodeAt(v.length - 1);
  if (last === 32 || last === 58 /* : */ || v.includes(': ') || v.includes(' #') || !PLAIN_CHARS.test(v)) return NOT_CANONICAL;
  return own(v);
}

// Structural keys repeat on every interaction: remember each verdict once.
const keyCache = new Map<string, string | typeof NOT_CANONICAL>();

function parseKey(k: string): string | typeof NOT_CANONICAL {
  const cached = keyCache.get(k);
  if (cached !== undefined) return cached;
  let key: string | typeof NOT_CANONICAL;
  if (k.charCodeAt(0) === 34) {
    const parsed = parseJson(k);
    key = typeof parsed === 'string' ? parsed : NOT_CANONICAL;
  } else {
    key = PLAIN_KEY.test(k) && !RESERVED_KEY.test(k) ? own(k) : NOT_CANONICAL;
  }
  // The cache outlives the cassette: it holds a copy, never a view on this file's text.
  if (keyCache.size < 10_000) keyCache.set(own(k), key);
  return key;
}

/** Finds the `: ` (or trailing `:`) that ends a key, skipping a quoted key. */
function keyEnd(s: string): number {
  if (s.charCodeAt(0) === 34) {
    let i = 1;
    while (i < s.length) {
      const ch = s.charCodeAt(i);
      if (ch === 92) i += 2;
      else if (ch === 34) break;
      else i++;
    }
    return s.charCodeAt(i + 1) === 58 ? i + 1 : -1;
  }
  return s.indexOf(':');
}

const closers = new Map<string, string>();
function closerFor(col: number, open: string): string {
  const k = `${col}${open}`;
  let c = closers.get(k);
  if (c === undefined) {
    c = `\n${' '.repeat(col)}${open === '{' ? '}' : ']'}`;
    closers.set(k, c);
  }
  return c;
}

/**
 * Reads the value that starts at `valueStart` on the current line. A lone `{`
 * or `[` opens a pretty-printed flow value whose closing bracket stands alone
 * at `baseCol + 2`; returns the value and where parsing resumes.
 */
/** Where the line pass resumes after `readValue` (saves allocating a tuple per value). */
let resumeAt = 0;

function readValue(text: string, valueStart: number, lineEnd: number, baseCol: number): unknown {
  resumeAt = lineEnd + 1;
  const c = text.charCodeAt(valueStart);
  // The common case, a double-quoted string with no escapes, costs one slice.
  if (c === 34 && lineEnd - valueStart > 1 && text.charCodeAt(lineEnd - 1) === 34) {
    const inner = text.slice(valueStart + 1, lineEnd - 1);
    if (!inner.includes('\\') && !inner.includes('"')) return own(inner);
  }
  const single = lineEnd - valueStart === 1 && (c === 123 || c === 91);
  if (!single) return lineEnd === valueStart ? NOT_CANONICAL : parseScalar(text.slice(valueStart, lineEnd));
  const closer = closerFor(baseCol + 2, c === 123 ? '{' : '[');
  let end = text.indexOf(closer, lineEnd);
  while (end !== -1) {
    const after = end + closer.length;
    if (after === text.length || text.charCodeAt(after) === 10) {
      resumeAt = after + 1;
      // Parsed on its own: a text that is not exactly one JSON value (a `},{` inside, an unclosed bracket) fails here, never merges with its neighbour.
      return parseJson(text.slice(valueStart, after));
    }
    end = text.indexOf(closer, end + 1);
  }
  return NOT_CANONICAL;
}

/** True when `text[at]` starts a sequence entry: a `-` followed by a space or the line end. */
function isDashAt(text: string, at: number, lineEnd: number): boolean {
  return text.charCodeAt(at) === 45 && (at + 1 === lineEnd || text.charCodeAt(at + 1) === 32);
}

/** Parses canonical YAML text; `undefined` means "not canonical, use a full parser". */
export function readCanonicalYaml(text: string): Record<string, unknown> | undefined {
  const root: Record<string, unknown> = {};
  const stack: Frame[] = [{ indent: 0, value: root }];
  const len = text.length;
  let pos = 0;
  let sawContent = false;

  while (pos < len) {
    let nl = text.indexOf('\n', pos);
    if (nl === -1) nl = len;
    let start = pos;
    while (start < nl && text.charCodeAt(start) === 32) start++;
    const col = start - pos;
    pos = nl + 1;
    if (start === nl) continue;
    const first = text.charCodeAt(start);
    if (first === 35 /* # */) continue;
    if (first === 9 || text.charCodeAt(nl - 1) === 13) return undefined;
    sawContent = true;

    // Leave the blocks this line is not inside of; a key left without a block is null.
    let top = stack[stack.length - 1] as Frame;
    while (col < top.indent) {
      if (top.pendingKey !== undefined) setOwn(top.value as Record<string, unknown>, top.pendingKey, null);
      stack.pop();
      top = stack[stack.length - 1] as Frame;
      if (top === undefined) return undefined;
    }
    if (top.pendingKey !== undefined) {
      const map = top.value as Record<string, unknown>;
      if (col > top.indent) {
        const child: Container = isDashAt(text, start, nl) ? [] : {};
        setOwn(map, top.pendingKey, child);
        top.pendingKey = undefined;
        top = { indent: col, value: child };
        stack.push(top);
      } else {
        setOwn(map, top.pendingKey, null);
        top.pendingKey = undefined;
      }
    } else if (col !== top.indent) {
      return undefined;
    }

    let keyStart = start;
    let keyCol = col;
    if (isDashAt(text, start, nl)) {
      if (!Array.isArray(top.value)) return undefined;
      keyStart = start + 2;
      const c0 = text.charCodeAt(keyStart);
      if (keyStart >= nl || c0 === 32 || isDashAt(text, keyStart, nl)) return undefined;
      const rest = text.slice(keyStart, nl);
      const ke = c0 === 123 || c0 === 91 || c0 === 39 ? -1 : keyEnd(rest);
      if (ke === -1 || (ke + 1 < rest.length && rest.charCodeAt(ke + 1) !== 32)) {
        const value = readValue(text, keyStart, nl, col);
        if (value === NOT_CANONICAL) return undefined;
        top.value.push(value);
        pos = resumeAt;
        continue;
      }
      const item: Record<string, unknown> = {};
      top.value.push(item);
      keyCol = col + 2;
      top = { indent: keyCol, value: item };
      stack.push(top);
    } else if (Array.isArray(top.value)) {
      return undefined;
    }

    // Plain keys are found in place; only a quoted key needs the line as a string.
    let ke: number;
    if (text.charCodeAt(keyStart) === 34) {
      ke = keyEnd(text.slice(keyStart, nl));
    } else {
      const colon = text.indexOf(':', keyStart);
      ke = colon === -1 || colon >= nl ? -1 : colon - keyStart;
    }
    if (ke <= 0) return undefined;
    const key = parseKey(text.slice(keyStart, keyStart + ke));
    if (key === NOT_CANONICAL) return undefined;
    const map = top.value as Record<string, unknown>;
    if (Object.hasOwn(map, key)) return undefined;
    if (keyStart + ke === nl - 1) {
      top.pendingKey = key;
      continue;
    }
    if (text.charCodeAt(keyStart + ke + 1) !== 32) return undefined;
    const value = readValue(text, keyStart + ke + 2, nl, keyCol);
    if (value === NOT_CANONICAL) return undefined;
    setOwn(map, key, value);
    pos = resumeAt;
  }

  for (const frame of stack) {
    if (frame.pendingKey !== undefined) setOwn(frame.value as Record<string, unknown>, frame.pendingKey, null);
  }
  if (!sawContent) return undefined;
  return root;
}
