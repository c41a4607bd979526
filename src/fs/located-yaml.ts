import type { z } from 'zod';
import { loadOnUse } from './load-on-use.js';

// Both parsers serve only text that is not canonical, and error messages: never loaded for a clean canonical read.
const jsYaml = loadOnUse<typeof import('js-yaml')>('js-yaml');
const yaml = loadOnUse<typeof import('yaml')>('yaml');

/** Where in a YAML (or JSON) text something went wrong: the line, when known, and what. */
export interface YamlFault {
  line?: number | undefined;
  detail: string;
}

function parseYamlDocument(text: string) {
  const { LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  // uniqueKeys stays on: a duplicated key in a hand edit is a mistake worth naming.
  // logLevel error: the library's warnings (a key that is itself a mapping) become our one-line errors, not stderr noise.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, logLevel: 'error' });
  return { doc, lineCounter };
}

// An anchor or alias at a token's start: js-yaml shares aliased nodes (no expansion limit), so such text takes the slow path.
const MAYBE_ALIAS = /(?:^|[\s[{,:?-])[&*][^\s[\]{},]/;

/**
 * Parses YAML (JSON is YAML too) that a person may have written, or says at
 * which line it is not YAML. js-yaml reads it first (the same YAML 1.2 core
 * schema, about ten times faster than the located parser); anything it
 * refuses, and any text with anchors, is read by `yaml`, which names the line.
 */
export function parseLocatedYaml(text: string): { value: unknown } | { fault: YamlFault } {
  if (!MAYBE_ALIAS.test(text)) {
    try {
      return { value: jsYaml().load(text) };
    } catch {
      // Refused (a syntax error, a duplicate or complex key, an empty document): the located parser says where, or reads it.
    }
  }
  const { doc, lineCounter } = parseYamlDocument(text);
  const error = doc.errors[0];
  if (error) return { fault: { line: lineCounter.linePos(error.pos[0]).line, detail: `invalid YAML: ${error.message.split('\n')[0]}` } };
  try {
    return { value: doc.toJS({ maxAliasCount: 100 }) };
  } catch (cause) {
    // Aliases are resolved only here (an unknown anchor, an alias bomb).
    return { fault: { detail: `invalid YAML: ${(cause as Error).message.split('\n')[0] ?? 'cannot be resolved'}` } };
  }
}

/** The line of the deepest node along `path` that exists in the document. */
export function lineOfPath(text: string, path: readonly PropertyKey[]): number | undefined {
  // A cassette's interactions are items of a top-level list: the item alone is parsed, not a file of a million of them.
  const item = typeof path[1] === 'number' ? listItemSpan(text, String(path[0]), path[1]) : undefined;
  if (item) {
    const within = lineInDocument(`    ${text.slice(item.start + 4, item.end)}`, path.slice(2));
    return within === undefined ? item.line : item.line + within - 1;
  }
  return lineInDocument(text, path);
}

/**
 * Where the `index`th item of a top-level list written as tapedeck writes it
 * (`key:` then items `  - ` at two spaces) starts and ends, and its line;
 * undefined for any other layout.
 */
function listItemSpan(text: string, key: string, index: number): { start: number; end: number; line: number } | undefined {
  const head = text.startsWith(`${key}:\n`) ? 0 : text.indexOf(`\n${key}:\n`) + 1;
  if (head <= 0 && !text.startsWith(`${key}:\n`)) return undefined;
  let at = text.indexOf('\n', head) + 1;
  for (let k = 0; at > 0 && at < text.length && text.startsWith('  - ', at); k++) {
    let end = at;
    do end = text.indexOf('\n', end) + 1;
    while (end > 0 && end < text.length && text.startsWith('    ', end));
    if (end <= 0) end = text.length;
    if (k === index) return { start: at, end, line: lineAt(text, at) };
    at = end;
  }
  return undefined;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function lineInDocument(text: string, path: readonly PropertyKey[]): number | undefined {
  const { doc, lineCounter } = parseYamlDocument(text);
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n) as unknown[], true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return lineCounter.linePos(node.range[0]).line;
  }
  return undefined;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur = root;
  for (const part of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[part];
  }
  return cur;
}

/** A zod issue in words a person fixing the file can act on: a missing field, an unknown one, or zod's own message. */
export function describeIssue(issue: z.core.$ZodIssue, root: unknown): string {
  const message = issue.message.replace(/^Invalid input: /, '');
  if (issue.code === 'invalid_type' && valueAt(root, issue.path) === undefined) {
    return `missing; ${message.replace(/, received undefined$/, '')}`;
  }
  if (issue.code === 'unrecognized_keys')
    return `unknown field ${issue.keys.map((k) => JSON.stringify(k.length > 60 ? `${k.slice(0, 57)}...` : k)).join(', ')}`;
  return message;
}

/** Formats a zod-style path as `interactions[2].response.status`. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}
