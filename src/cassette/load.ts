import { readFileSync, statSync } from 'node:fs';
import type { z } from 'zod';
import { describeIssue, formatFieldPath, lineOfPath, parseLocatedYaml } from '../fs/located-yaml.js';
import { MAX_JSON_DEPTH, tooDeepAt } from './body.js';
import { CassetteError } from './errors.js';
import { readCanonicalYaml } from './read-canonical-yaml.js';
import { CASSETTE_VERSION, type Cassette, cassetteSchema, type Interaction, interactionSchema } from './schema.js';
import { compileAcceptor } from './schema-acceptor.js';

/** Parses YAML text that is not in canonical form, naming the line of the first error. */
function parseAnyYaml(text: string, file: string): unknown {
  const parsed = parseLocatedYaml(text);
  if ('fault' in parsed) throw new CassetteError('cassette_yaml', { file, line: parsed.fault.line }, parsed.fault.detail);
  return parsed.value;
}

/** Interactions zod would accept unchanged are kept as read, not copied (most of what loading a cassette cost). */
const acceptsInteraction = compileAcceptor(interactionSchema);

/**
 * Validates a parsed cassette one interaction at a time, each replaced by its
 * validated copy as it goes: the same verdict as the whole schema at once,
 * without a second copy of a big cassette held until the end.
 */
function validate(raw: Record<string, unknown>): ReturnType<typeof cassetteSchema.safeParse> {
  const list = raw.interactions;
  if (!Array.isArray(list)) return cassetteSchema.safeParse(raw);
  const head = cassetteSchema.safeParse({ ...raw, interactions: [] });
  if (!head.success) return head;
  const interactions: Interaction[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    if (acceptsInteraction(list[i])) {
      interactions[i] = list[i] as Interaction;
      continue;
    }
    const one = interactionSchema.safeParse(list[i]);
    if (!one.success) {
      for (const issue of one.error.issues) issue.path.unshift('interactions', i);
      return one as unknown as ReturnType<typeof cassetteSchema.safeParse>;
    }
    interactions[i] = one.data;
    list[i] = undefined;
  }
  return { success: true, data: { ...head.data, interactions } };
}

/** The largest cassette file read: about what one JavaScript string holds, and far past any recording's size. */
export const MAX_CASSETTE_FILE = 512 * 1024 * 1024;

/** Refuses a file over `MAX_CASSETTE_FILE` from its size alone, before a byte of it is read. */
export function refuseTooBig(file: string): void {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return; // the read that follows says why
  }
  if (size <= MAX_CASSETTE_FILE) return;
  throw new CassetteError(
    'cassette_too_big',
    { file },
    `is ${Math.round(size / 1048576)} MiB, over the ${MAX_CASSETTE_FILE / 1048576} MiB tapedeck reads; it is no cassette tapedeck wrote, or split the recording (a cassette per probe)`,
  );
}

/**
 * Refuses nesting deeper than the recorder ever writes (it keeps deeper JSON
 * as text): every reader walks a cassette's trees, and a hand-edited one
 * thousands of levels deep would overflow the stack of each.
 */
export function refuseTooDeep(text: string, file: string): void {
  const at = tooDeepAt(text);
  if (at === -1) return;
  throw new CassetteError(
    'cassette_too_deep',
    { file, line: text.slice(0, at).split('\n').length },
    `nests deeper than ${MAX_JSON_DEPTH} levels, which tapedeck never records (it keeps deeper JSON as text); flatten it, or keep it as a text body`,
  );
}

/**
 * Parses and validates cassette text. Canonical files take a fast path;
 * anything else goes through a full YAML parser. Errors name file, line and field.
 */
export function parseCassette(text: string, file = '<cassette>'): Cassette {
  refuseTooDeep(text, file);
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
  // Always validated: a digest is a cache, not a proof (anyone can write the digest of a body that is no cassette).
  const result = validate(raw as Record<string, unknown>);
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
  refuseTooBig(file);
  let text: string;
  try {
    // Read at once into a string, with no Buffer beside it: the parse that follows holds the event loop far longer
    // than the read, and an async read's Buffer (as big as the file) lives until a collection frees it, which on a
    // 50k-interaction cassette put one load in four about 40 MB above the others at its peak.
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (cause as Error).message;
    throw new CassetteError('cassette_unreadable', { file }, `cannot be read: ${reason}`, { cause });
  }
  return parseCassette(text, file);
}
