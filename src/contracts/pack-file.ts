import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { TapedeckError } from '../errors.js';
import { describeIssue, formatFieldPath, lineOfPath, parseLocatedYaml } from '../fs/located-yaml.js';
import { findPack } from './catalogue.js';
import { payloadSchemaFromJson } from './embedded-json.js';
import type { Pack } from './pack.js';
import { type Rule, ruleSchema } from './rules.js';
import { compileSelector } from './selectors.js';

export type PackFileErrorCode = 'pack_unreadable' | 'pack_invalid';

/** A pack file that cannot be used: the message starts with `file[:line]` and names the field. */
export class PackFileError extends TapedeckError {
  declare readonly code: PackFileErrorCode;
  constructor(code: PackFileErrorCode, where: { file: string; line?: number | undefined; field?: string | undefined }, detail: string) {
    const loc = where.line === undefined ? where.file : `${where.file}:${where.line}`;
    super(code, `${loc}${where.field ? ` ${where.field}:` : ''} ${detail.replace(/\s*\n\s*/g, ' ')}`);
  }
}

const regexSource = z
  .string()
  .min(1)
  .refine(
    (s) => {
      try {
        new RegExp(s);
        return true;
      } catch {
        return false;
      }
    },
    { error: 'not a regular expression (JavaScript syntax, as in new RegExp)' },
  );

// What a person writes: a rule's description, source and scope may be left out (filled in on load).
const fileRule = z.discriminatedUnion(
  'kind',
  ruleSchema.options.map((o) => (o as unknown as z.ZodObject).partial({ description: true, source: true, scope: true })) as [
    z.ZodObject,
    ...z.ZodObject[],
  ],
);

/** The fields of a rule that hold selectors, checked on load so a typo is named where it stands. */
const SELECTOR_FIELDS = ['earlier', 'later', 'of', 'trailers', 'start', 'end', 'event', 'after', 'until', 'delta', 'whole'] as const;

/** The first selector of a rule that does not compile: where it stands (from the rule) and why. */
function badSelector(rule: Record<string, unknown>): { path: (string | number)[]; message: string } | undefined {
  for (const field of SELECTOR_FIELDS) {
    const v = rule[field];
    const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
    for (const [n, sel] of list.entries())
      try {
        compileSelector(String(sel));
      } catch (cause) {
        return { path: Array.isArray(v) ? [field, n] : [field], message: (cause as Error).message };
      }
  }
  return undefined;
}

/** A JSON Schema for an event type's data (draft 2020-12, as zod's fromJSONSchema reads it). */
const jsonSchema = z.union([z.boolean(), z.record(z.string(), z.unknown())]);

/** A pack as a YAML or JSON file: rules as data, payload schemas as JSON Schema. */
export const packFileSchema = z.strictObject({
  $schema: z.string().optional(),
  name: z.string().min(1),
  description: z.string().optional(),
  /** Requests that start a turn, for turn-scoped rules: method, a path regex and the JSON body's `type`. */
  turnStarts: z.array(z.strictObject({ method: z.string().min(1), path: regexSource, bodyType: z.string().optional() })).optional(),
  /** Paths (regexes) of the stream requests the pack describes; without it, every stream of a cassette. */
  routes: z.array(regexSource).optional(),
  payloads: z.record(z.string(), jsonSchema).optional(),
  openVocabulary: z.boolean().optional(),
  optional: z.array(z.string()).optional(),
  noise: z.array(z.string()).optional(),
  reorderable: z.array(z.string()).optional(),
  rules: z.array(fileRule).min(1),
});
export type PackFile = z.input<typeof packFileSchema>;

/** The JSON Schema of pack files, for editors (`$schema` in a pack file). */
export function packFileJsonSchema(): Record<string, unknown> {
  return {
    $id: 'urn:tapedeck-bench:schema:pack:1',
    ...z.toJSONSchema(packFileSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'tapedeck contract pack',
  };
}

// The scope a rule maker gives when none is named: rules about one event's neighbours hold per turn.
const NO_TURNS = 'a turn-scoped rule in a pack that lists no turnStarts would check nothing: add turnStarts, or scope it stream';
const STREAM_KINDS = new Set(['firstEvent', 'framing', 'sequence', 'progression', 'assembles']);

const DATA_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
const MODULE_EXTENSIONS = new Set(['.js', '.mjs', '.cjs']);

/** Whether a `--pack` value names a file rather than a pack (built-in names have a slash too: `opencode/events`). */
export const isPackFile = (ref: string) =>
  DATA_EXTENSIONS.has(extname(ref)) || MODULE_EXTENSIONS.has(extname(ref)) || /^(\.{1,2}[\\/]|[\\/]|[A-Za-z]:[\\/])/.test(ref);

/** A pack from a YAML or JSON file, validated; errors name file, line and field. */
export function readPackFile(file: string): Pack {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (cause as Error).message;
    throw new PackFileError('pack_unreadable', { file }, `cannot be read: ${reason}`);
  }
  const parsed = parseLocatedYaml(text);
  if ('fault' in parsed) throw new PackFileError('pack_invalid', { file, line: parsed.fault.line }, parsed.fault.detail);
  const fault = (path: readonly PropertyKey[], detail: string) =>
    new PackFileError('pack_invalid', { file, line: lineOfPath(text, path), field: formatFieldPath(path) || '(root)' }, detail);
  const result = packFileSchema.safeParse(parsed.value);
  if (!result.success) {
    const issue = result.error.issues[0] as z.core.$ZodIssue;
    throw fault(issue.path, describeIssue(issue, parsed.value));
  }
  const data = result.data;
  const hasTurns = (data.turnStarts ?? []).length > 0;
  for (const [i, rule] of data.rules.entries()) {
    const sel = badSelector(rule as Record<string, unknown>);
    if (sel) throw fault(['rules', i, ...sel.path], sel.message);
    if (rule.scope === 'turn' && !hasTurns) throw fault(['rules', i, 'scope'], NO_TURNS);
  }
  const payloads: Record<string, z.ZodType> = {};
  for (const [type, schema] of Object.entries(data.payloads ?? {})) {
    try {
      payloads[type] = payloadSchemaFromJson(schema);
    } catch (cause) {
      throw fault(['payloads', type], `not a JSON Schema zod can read: ${(cause as Error).message.split('\n')[0]}`);
    }
  }
  const rules = data.rules.map((r, i): Rule => {
    const rule = r as Partial<Rule> & { kind: string; name: string };
    return ruleSchema.parse({
      ...rule,
      description: rule.description ?? rule.name,
      source: rule.source ?? `${file} rules[${i}]`,
      // Without turn starts there are no turns: a rule then holds over the whole stream.
      scope: rule.scope ?? (hasTurns && !STREAM_KINDS.has(rule.kind) ? 'turn' : 'stream'),
    });
  });
  return {
    name: data.name,
    description: data.description ?? `rules from ${file}`,
    turnStarts: (data.turnStarts ?? []).map((t) => ({
      method: t.method,
      path: new RegExp(t.path),
      ...(t.bodyType !== undefined ? { bodyType: t.bodyType } : {}),
    })),
    payloads,
    rules,
    ...(data.routes ? { routes: data.routes.map((r) => new RegExp(r)) } : {}),
    ...(data.openVocabulary !== undefined ? { openVocabulary: data.openVocabulary } : {}),
    ...(data.optional ? { optional: data.optional } : {}),
    ...(data.noise ? { noise: data.noise } : {}),
    ...(data.reorderable ? { reorderable: data.reorderable } : {}),
  };
}

/** Checks what a pack module exports: a name, rules that are rules, payload schemas that parse. */
function checkModulePack(file: string, value: unknown): Pack {
  const bad = (field: string, detail: string) => new PackFileError('pack_invalid', { file, field }, detail);
  if (!value || typeof value !== 'object') throw bad('(export)', 'export a pack as the default export or as `pack`');
  const pack = value as Partial<Pack>;
  if (typeof pack.name !== 'string' || pack.name === '') throw bad('name', 'missing; a pack needs a name');
  if (!Array.isArray(pack.rules) || pack.rules.length === 0) throw bad('rules', 'missing; a pack needs at least one rule');
  pack.rules.forEach((rule, i) => {
    const r = ruleSchema.safeParse(rule);
    if (!r.success) {
      const issue = r.error.issues[0] as z.core.$ZodIssue;
      throw bad(formatFieldPath([`rules`, i, ...issue.path]), describeIssue(issue, rule));
    }
    const sel = badSelector(rule as Record<string, unknown>);
    if (sel) throw bad(formatFieldPath(['rules', i, ...sel.path]), sel.message);
    if (r.data.scope === 'turn' && (pack.turnStarts ?? []).length === 0) throw bad(formatFieldPath(['rules', i, 'scope']), NO_TURNS);
  });
  for (const [type, schema] of Object.entries(pack.payloads ?? {}))
    if (typeof (schema as { safeParse?: unknown })?.safeParse !== 'function')
      throw bad(formatFieldPath(['payloads', type]), 'not a zod schema (a module pack gives zod schemas; a YAML pack, JSON Schema)');
  return { description: '', turnStarts: [], payloads: {}, ...pack } as Pack;
}

/** A pack from a JavaScript module that exports one (default export, or `pack`). */
export async function importPackModule(file: string): Promise<Pack> {
  let mod: { default?: unknown; pack?: unknown };
  try {
    mod = (await import(pathToFileURL(resolve(file)).href)) as typeof mod;
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const reason = code === 'ERR_MODULE_NOT_FOUND' ? 'no such file' : (cause as Error).message.split('\n')[0];
    throw new PackFileError('pack_unreadable', { file }, `cannot be imported: ${reason}`);
  }
  return checkModulePack(file, mod.default ?? mod.pack);
}

/** A pack by built-in name, or from a file: YAML or JSON (read now), or a module (import it with `loadPack`). */
export function resolvePackSync(ref: string | Pack): Pack {
  if (typeof ref !== 'string') return ref;
  if (!isPackFile(ref)) return findPack(ref);
  if (MODULE_EXTENSIONS.has(extname(ref)))
    throw new PackFileError(
      'pack_invalid',
      { file: ref },
      'a JavaScript pack is imported: `await loadPack(file)` first, then pass the pack',
    );
  return readPackFile(ref);
}

/** A pack by built-in name or from a file: `./team-pack.yaml`, `.json`, or a module `./pack.js` exporting one. */
export async function loadPack(ref: string | Pack): Promise<Pack> {
  if (typeof ref === 'string' && isPackFile(ref) && MODULE_EXTENSIONS.has(extname(ref))) return importPackModule(ref);
  return resolvePackSync(ref);
}
