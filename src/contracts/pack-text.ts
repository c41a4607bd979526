import { z } from 'zod';
import { describeIssue, formatFieldPath, lineOfPath, parseLocatedYaml } from '../fs/located-yaml.js';
import { payloadSchemaFromJson } from './embedded-json.js';
import type { Pack } from './pack.js';
import { PackFileError } from './pack-file-error.js';
import { type Rule, ruleSchema } from './rules.js';
import { compileSelector } from './selectors.js';

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
export function badSelector(rule: Record<string, unknown>): { path: (string | number)[]; message: string } | undefined {
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
  /** JSON-RPC over HTTP: the interactions whose requests carry the same value of this header are one session, checked whole. */
  session: z.strictObject({ header: z.string().min(1), issuedBy: z.enum(['server', 'client']).optional() }).optional(),
  rules: z.array(fileRule).min(1),
});
export type PackFile = z.input<typeof packFileSchema>;

/** Several packs in one file, one for each kind of stream a server sends (what `bench infer` writes for several routes). */
export const packSetSchema = z.strictObject({
  $schema: z.string().optional(),
  description: z.string().optional(),
  packs: z.array(packFileSchema).min(1),
});

/** The JSON Schema of pack files, for editors (`$schema` in a pack file): one pack, or several under `packs`. */
export function packFileJsonSchema(): Record<string, unknown> {
  return {
    $id: 'urn:tapedeck-bench:schema:pack:1',
    ...z.toJSONSchema(z.union([packFileSchema, packSetSchema]), { io: 'input', unrepresentable: 'any' }),
    title: 'tapedeck contract pack',
  };
}

// The scope a rule maker gives when none is named: rules about one event's neighbours hold per turn.
export const NO_TURNS = 'a turn-scoped rule in a pack that lists no turnStarts would check nothing: add turnStarts, or scope it stream';
const STREAM_KINDS = new Set(['firstEvent', 'framing', 'sequence', 'progression', 'assembles']);

type Fault = (path: readonly PropertyKey[], detail: string) => PackFileError;

/** The packs in the text of a pack file (one, or several under `packs`), validated; errors name file, line and field. */
export function parsePackTexts(text: string, file: string): Pack[] {
  const parsed = parseLocatedYaml(text);
  if ('fault' in parsed) throw new PackFileError('pack_invalid', { file, line: parsed.fault.line }, parsed.fault.detail);
  const fault: Fault = (path, detail) =>
    new PackFileError('pack_invalid', { file, line: lineOfPath(text, path), field: formatFieldPath(path) || '(root)' }, detail);
  const value = parsed.value;
  const several = typeof value === 'object' && value !== null && 'packs' in value;
  const result = (several ? packSetSchema : packFileSchema).safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0] as z.core.$ZodIssue;
    throw fault(issue.path, describeIssue(issue, value));
  }
  if (!several) return [toPack(result.data as PackFileData, file, fault)];
  const packs = (result.data as z.output<typeof packSetSchema>).packs.map((data, i) =>
    toPack(data, file, (path, detail) => fault(['packs', i, ...path], detail)),
  );
  const names = packs.map((p) => p.name);
  const twice = names.findIndex((n, i) => names.indexOf(n) !== i);
  if (twice !== -1) throw fault(['packs', twice, 'name'], `a second pack named ${names[twice]}; give each pack its own name`);
  return packs;
}

/** The one pack in the text of a pack file; a file of several is refused with how to use it. */
export function parsePackText(text: string, file: string): Pack {
  const packs = parsePackTexts(text, file);
  if (packs.length > 1)
    throw new PackFileError(
      'pack_invalid',
      { file },
      `holds ${packs.length} packs (${packs.map((p) => p.name).join(', ')}); load it with loadPacks, or give it to bench verify --pack, which takes several`,
    );
  return packs[0] as Pack;
}

type PackFileData = z.output<typeof packFileSchema>;

/** A validated pack file's data as a pack: selectors compiled, JSON Schemas read by zod, scopes filled in. */
function toPack(data: PackFileData, file: string, fault: Fault): Pack {
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
    ...(data.session ? { session: { ...data.session, header: data.session.header.toLowerCase() } } : {}),
  };
}
