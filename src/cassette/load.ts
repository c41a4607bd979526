import { readFile } from 'node:fs/promises';
import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { CassetteError, formatFieldPath } from './errors.js';
import { readCanonicalYaml } from './read-canonical-yaml.js';
import { CASSETTE_VERSION, type Cassette, cassetteSchema } from './schema.js';

function parseYamlDocument(text: string) {
  const lineCounter = new LineCounter();
  // uniqueKeys stays on: a duplicated key in a hand edit is a mistake worth naming.
  // logLevel error: the library's warnings (a key that is itself a mapping) become our one-line schema errors, not stderr noise.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, logLevel: 'error' });
  return { doc, lineCounter };
}

/** Parses YAML text that is not in canonical form, naming the line of the first error. */
function parseAnyYaml(text: string, file: string): unknown {
  const { doc, lineCounter } = parseYamlDocument(text);
  const error = doc.errors[0];
  if (error) {
    const line = lineCounter.linePos(error.pos[0]).line;
    const detail = error.message.split('\n')[0] ?? error.message;
    throw new CassetteError('cassette_yaml', { file, line }, `invalid YAML: ${detail}`);
  }
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (cause) {
    // Aliases are resolved only here (an unknown anchor, an alias bomb).
    const detail = (cause as Error).message.split('\n')[0] ?? 'cannot be resolved';
    throw new CassetteError('cassette_yaml', { file }, `invalid YAML: ${detail}`, { cause });
  }
}

/** The line of the deepest node along `path` that exists in the document. */
function lineOfPath(text: string, path: readonly PropertyKey[]): number | undefined {
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

function describeIssue(issue: z.core.$ZodIssue, root: unknown): string {
  const message = issue.message.replace(/^Invalid input: /, '');
  if (issue.code === 'invalid_type' && valueAt(root, issue.path) === undefined) {
    return `missing; ${message.replace(/, received undefined$/, '')}`;
  }
  if (issue.code === 'unrecognized_keys')
    return `unknown field ${issue.keys.map((k) => JSON.stringify(k.length > 60 ? `${k.slice(0, 57)}...` : k)).join(', ')}`;
  return message;
}

/**
 * Parses and validates cassette text. Canonical files take a fast path;
 * anything else goes through a full YAML parser. Errors name file, line and field.
 */
export function parseCassette(text: string, file = '<cassette>'): Cassette {
  const raw: unknown = readCanonicalYaml(text) ?? parseAnyYaml(text, file);
  if (raw === null || raw === undefined) {
    throw new CassetteError('cassette_schema', { file }, 'is empty; expected a tapedeck cassette (version, meta, interactions)');
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new CassetteError('cassette_schema', { file, line: 1 }, 'expected a mapping with version, meta and interactions');
  }
  const version = (raw as { version?: unknown }).version;
  if (version === undefined) {
    throw new CassetteError(
      'cassette_version',
      { file, line: 1, fieldPath: 'version' },
      `missing; expected ${CASSETTE_VERSION}. Is this a tapedeck cassette?`,
    );
  }
  if (version !== CASSETTE_VERSION) {
    throw new CassetteError(
      'cassette_version',
      { file, line: lineOfPath(text, ['version']), fieldPath: 'version' },
      `unknown cassette version ${JSON.stringify(version)}; this tapedeck reads version ${CASSETTE_VERSION}`,
    );
  }
  // Always validated: a digest is a cache, not a proof (anyone can write the digest of a body that is no cassette),
  // and validating (about JSON.parse's own time) costs less than hashing the text to check the digest.
  const result = cassetteSchema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0] as z.core.$ZodIssue;
  const path = issue.path;
  throw new CassetteError(
    'cassette_schema',
    { file, line: lineOfPath(text, path), fieldPath: formatFieldPath(path) || '(root)' },
    describeIssue(issue, raw),
  );
}

/** Reads, parses and validates a cassette file. */
export async function loadCassette(file: string): Promise<Cassette> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (cause as Error).message;
    throw new CassetteError('cassette_unreadable', { file }, `cannot be read: ${reason}`, { cause });
  }
  return parseCassette(text, file);
}
