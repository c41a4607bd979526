import { readFileSync } from 'node:fs';
import { ALWAYS_REDACTED_HEADERS, backtrackingRisk, isRecord, type RedactionConfig, redactionConfigSchema } from './cassette/index.js';
import { UsageError } from './errors.js';
import { findNearestSync } from './fs/find-nearest.js';

const CONFIG_NAME = 'tapedeck.config.json';
/** The sections a config file may have; any other key is a typo that would silently leave the defaults in force. */
export const CONFIG_SECTIONS = ['redact', 'drift', 'match', 'cassettes'] as const;

/** The nearest of `names` from `from` up to the repository root (the folder holding `.git`). */
export async function findNearest(names: readonly string[], from: string): Promise<string | undefined> {
  return findNearestSync(names, from);
}

/**
 * The config file a command uses: `file` when given, else the nearest
 * `tapedeck.config.json` from the working folder up to the repository root
 * (the folder holding `.git`), so a command run in a subfolder still finds it.
 */
export async function findConfigFile(file?: string, from = process.cwd()): Promise<string | undefined> {
  return findConfigFileSync(file, from);
}

/** `findConfigFile`, at once. */
export function findConfigFileSync(file?: string, from = process.cwd()): string | undefined {
  return file ?? findNearestSync([CONFIG_NAME], from);
}

/**
 * Reads a JSON config file's section; no config file gives undefined. A file
 * or a section that is not a JSON object is refused: a config never fails open.
 */
export async function readConfigSection(file: string | undefined, section: string): Promise<unknown> {
  return readConfigSectionSync(file, section);
}

/** `readConfigSection`, at once. */
export function readConfigSectionSync(file: string | undefined, section: string): unknown {
  const path = findConfigFileSync(file);
  if (!path) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`config ${path}: cannot be read (${(err as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`config ${path}: not valid JSON (${(err as Error).message})`);
  }
  if (!isRecord(parsed))
    throw new UsageError(
      `config ${path}: expected a JSON object with sections such as "redact" and "drift", got ${JSON.stringify(parsed)}`,
    );
  const unknown = Object.keys(parsed as object).filter((k) => k !== '$schema' && !(CONFIG_SECTIONS as readonly string[]).includes(k));
  if (unknown.length)
    throw new UsageError(
      `config ${path}: unknown section ${JSON.stringify(unknown[0])}; the sections are ${CONFIG_SECTIONS.map((s) => `"${s}"`).join(', ')}`,
    );
  const value = (parsed as Record<string, unknown>)[section];
  if (value !== undefined && !isRecord(value))
    throw new UsageError(
      `config ${path} ${section}: expected an object, got ${JSON.stringify(value)}; leave the section out for the defaults`,
    );
  return value;
}

/** The `redact` section of the config (see `findConfigFile`), checked; defaults when absent. */
export async function loadRedactionConfig(file?: string): Promise<RedactionConfig> {
  return loadRedactionConfigSync(file);
}

/** `loadRedactionConfig`, at once. */
export function loadRedactionConfigSync(file?: string): RedactionConfig {
  const where = findConfigFileSync(file) ?? CONFIG_NAME;
  const raw = readConfigSectionSync(file, 'redact');
  const result = redactionConfigSchema.safeParse(raw ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new UsageError(`config ${where} redact.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  // Exempting one of these would be silently ignored; saying so beats letting the user believe it took.
  const pinned = result.data.exempt.find((n) => ALWAYS_REDACTED_HEADERS.includes(n.toLowerCase()));
  if (pinned)
    throw new UsageError(
      `config ${where} redact.exempt: ${JSON.stringify(pinned)} is always redacted and cannot be exempted; remove it from the list`,
    );
  for (const p of result.data.patterns) {
    let re: RegExp;
    try {
      re = new RegExp(p);
    } catch {
      throw new UsageError(`config ${where} redact.patterns: ${JSON.stringify(p)} is not a regular expression`);
    }
    const unsafe = backtrackingRisk(p);
    if (unsafe) throw new UsageError(`config ${where} redact.patterns: ${JSON.stringify(p)} ${unsafe}`);
    // A pattern that matches nothing at all matches everywhere: it would redact every string (and could not be undone).
    if (re.test(''))
      throw new UsageError(
        `config ${where} redact.patterns: ${JSON.stringify(p)} matches the empty string, so it would match everywhere; make it match the secret itself`,
      );
  }
  return result.data;
}
