import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { describeIssue, formatFieldPath, lineOfPath, parseLocatedYaml } from '../fs/located-yaml.js';
import { CassetteError } from './errors.js';
import { readCanonicalYaml } from './read-canonical-yaml.js';
import { CASSETTE_VERSION, type Cassette, cassetteSchema } from './schema.js';

/** Parses YAML text that is not in canonical form, naming the line of the first error. */
function parseAnyYaml(text: string, file: string): unknown {
  const parsed = parseLocatedYaml(text);
  if ('fault' in parsed) throw new CassetteError('cassette_yaml', { file, line: parsed.fault.line }, parsed.fault.detail);
  return parsed.value;
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
