import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { UsageError } from '../../errors.js';
import { type FaultRule, type FaultsFile, faultRuleSchema, faultsFileSchema } from './schema.js';

const EXAMPLE = 'kind=status,status=503,header.retry-after=1,path=/v1/chat/*,call=1';

/** The first problem zod found, as `where.field: message`. */
function firstIssue(error: z.ZodError, where: string): string {
  const issue = error.issues[0];
  const path = issue?.path.length ? `${where}.${issue.path.join('.')}` : where;
  return `${path}: ${issue?.message ?? 'invalid'}`;
}

/** Fault rules passed in code, checked: a typo in a kind must not replay unbroken and pass. */
export function checkedFaults(faults: readonly unknown[] | undefined): FaultRule[] {
  if (!faults) return [];
  return faults.map((rule, n) => {
    const result = faultRuleSchema.safeParse(rule);
    if (result.success) return result.data;
    throw new UsageError(`${firstIssue(result.error, `faults[${n}]`)}; the kinds are ${KINDS}`);
  });
}

const KINDS = faultRuleSchema.options.map((o) => o.shape.kind.value).join(', ');

/** Keys whose values stay text; every other value that reads as a number is one. */
const TEXT_KEYS = new Set(['kind', 'method', 'path', 'cassette', 'reason', 'body']);

/**
 * One `--fault`: a JSON object, or `key=value` pairs joined by commas, where `header.NAME=value` adds a header
 * (`kind=status,status=503,header.retry-after=1,call=1`).
 */
export function parseFaultSpec(spec: string): FaultRule {
  const raw: Record<string, unknown> = spec.trim().startsWith('{') ? parseJson(spec) : pairs(spec);
  const result = faultRuleSchema.safeParse(raw);
  if (result.success) return result.data;
  throw new UsageError(
    `--fault ${JSON.stringify(spec)}: ${firstIssue(result.error, 'fault')}; the kinds are ${KINDS}; e.g. --fault ${EXAMPLE}`,
  );
}

function parseJson(spec: string): Record<string, unknown> {
  try {
    return JSON.parse(spec) as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(`--fault ${JSON.stringify(spec)}: not JSON (${(err as Error).message}); e.g. --fault ${EXAMPLE}`);
  }
}

function pairs(spec: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const part of spec.split(',')) {
    const at = part.indexOf('=');
    if (at <= 0) throw new UsageError(`--fault ${JSON.stringify(spec)}: ${JSON.stringify(part)} is not key=value; e.g. --fault ${EXAMPLE}`);
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key.startsWith('header.')) {
      out.headers = { ...(out.headers as object), [key.slice('header.'.length)]: value };
      continue;
    }
    out[key] = !TEXT_KEYS.has(key) && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return out;
}

/** A faults file (YAML or JSON): `{ seed?, faults: [...] }`. */
export async function readFaultsFile(file: string): Promise<FaultsFile> {
  let parsed: unknown;
  try {
    // Loaded here: a replay with no faults file has no YAML document to read.
    parsed = (await import('yaml')).parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--faults ${file}: cannot be read (${(err as Error).message.split('\n')[0]})`);
  }
  const result = faultsFileSchema.safeParse(parsed);
  if (result.success) return result.data;
  throw new UsageError(`--faults ${file}: ${firstIssue(result.error, 'file')}; the kinds are ${KINDS}`);
}
