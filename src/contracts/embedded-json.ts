import { z } from 'zod';

// A JSON document sent as a string is read up to this size; past it, it is text.
const EMBEDDED_MAX = 1 << 20;

/**
 * The object or array a string holds as JSON text (`"{\"temp\":21}"`: a tool's result, a call's arguments), or
 * undefined for any other string. Drift, selectors (`content{}.temp`) and pack schemas look inside it.
 */
export function embeddedJson(value: string): object | undefined {
  const first = value.charCodeAt(0);
  if ((first !== 123 && first !== 91) || value.length > EMBEDDED_MAX) return undefined; // `{` or `[`
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === 'object' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

type JsonSchemaNode = { [key: string]: unknown };
const isNode = (v: unknown): v is JsonSchemaNode => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a JSON Schema describes JSON text anywhere in it (`contentMediaType: application/json` with a `contentSchema`). */
export function describesEmbeddedJson(schema: unknown): boolean {
  if (!isNode(schema)) return Array.isArray(schema) && schema.some(describesEmbeddedJson);
  if (schema.contentMediaType === 'application/json' && isNode(schema.contentSchema)) return true;
  return Object.values(schema).some((v) => typeof v === 'object' && describesEmbeddedJson(v));
}

const compiled = new WeakMap<object, z.ZodType>();
const compile = (schema: JsonSchemaNode) => {
  let out = compiled.get(schema);
  if (!out) compiled.set(schema, (out = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0])));
  return out;
};

/** The first place a value breaks the `contentSchema` of JSON text its schema describes: the path and why. */
function embeddedIssue(
  schema: unknown,
  value: unknown,
  path: (string | number)[],
): { path: (string | number)[]; message: string } | undefined {
  if (!isNode(schema)) return undefined;
  if (schema.contentMediaType === 'application/json' && isNode(schema.contentSchema) && typeof value === 'string') {
    const inner = embeddedJson(value);
    if (inner === undefined) return { path, message: 'expected JSON text (an object or array)' };
    const r = compile(schema.contentSchema).safeParse(inner);
    if (!r.success) {
      const issue = r.error.issues[0];
      return {
        path: [...path, '{}', ...(issue?.path ?? []).map((p) => (typeof p === 'symbol' ? String(p) : p))],
        message: issue?.message ?? 'invalid',
      };
    }
    return embeddedIssue(schema.contentSchema, inner, [...path, '{}']);
  }
  if (isNode(schema.properties) && isNode(value) && !Array.isArray(value))
    for (const [key, sub] of Object.entries(schema.properties)) {
      const found = key in value ? embeddedIssue(sub, (value as Record<string, unknown>)[key], [...path, key]) : undefined;
      if (found) return found;
    }
  if (isNode(schema.items) && Array.isArray(value))
    for (const [i, item] of value.entries()) {
      const found = embeddedIssue(schema.items, item, [...path, i]);
      if (found) return found;
    }
  return undefined;
}

/** A zod schema from a JSON Schema that also checks the JSON text it describes (`contentSchema`), which zod leaves alone. */
export function payloadSchemaFromJson(schema: unknown): z.ZodType {
  const base = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  if (!describesEmbeddedJson(schema)) return base;
  return base.superRefine((value, ctx) => {
    const issue = embeddedIssue(schema, value, []);
    if (issue) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  });
}
