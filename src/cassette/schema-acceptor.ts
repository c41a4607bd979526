import type { z } from 'zod';

/** True only when the schema accepts the value and would return a structural copy of it. */
export type Acceptor = (value: unknown) => boolean;

type Def = z.core.$ZodTypeDef & Record<string, unknown>;
type Check = z.core.$ZodCheck;
type Schema = z.core.$ZodType;

const decline: Acceptor = () => false;

/** An object as JSON.parse makes one: zod's copy of any other (a null prototype, a class) would not be the same value. */
function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * The schema's own checks (refinements, formats, bounds) as one test of the
 * value as it stands. One payload serves every call: a check only pushes issues.
 */
function checksOf(checks: readonly Check[]): (value: unknown) => boolean {
  if (checks.length === 0) return () => true;
  const payload = { value: undefined as unknown, issues: [] as unknown[] };
  return (value) => {
    payload.value = value;
    for (const check of checks) {
      const done = check._zod.check(payload as z.core.ParsePayload<never>);
      if (done instanceof Promise || payload.issues.length) {
        payload.issues = [];
        return false;
      }
    }
    return true;
  };
}

/** Every check zod runs on a value of this schema: a string format is a check itself. */
function allChecks(schema: Schema, checks: readonly Check[]): readonly Check[] {
  return schema._zod.traits.has('$ZodCheck') ? [schema as unknown as Check, ...checks] : checks;
}

/** A rare leaf (literal, enum, boolean) is judged by zod's own run, which neither copies nor transforms it. */
function leaf(schema: Schema): Acceptor {
  const run = schema._zod.run;
  const ctx = { async: false } as z.core.ParseContextInternal;
  return (value) => {
    if (value === undefined) return false;
    const out = run({ value, issues: [] }, ctx);
    return !(out instanceof Promise) && out.issues.length === 0 && out.value === value;
  };
}

/** How far a yes reaches: `anyOrder`, an object's keys may come in any order (for a caller that orders them itself). */
interface Reach {
  anyOrder: boolean;
}

function objectAcceptor(def: Def, checks: readonly Check[], reach: Reach): Acceptor {
  const shape = def.shape as Record<string, Schema>;
  // Only a strict object is a structural copy: a stripping one drops keys, a loose one keeps them unchecked.
  if ((def.catchall as Schema | undefined)?._zod.def.type !== 'never') return decline;
  const keys = Object.keys(shape);
  const fields = keys.map((k) => compile(shape[k] as Schema, reach));
  const optional = keys.map((k) => (shape[k] as Schema)._zod.def.type === 'optional');
  const passes = checksOf(checks);
  if (reach.anyOrder) return anyOrderObject(keys, fields, optional, passes);
  return (value) => {
    if (!isPlain(value)) return false;
    // Zod's copy lists the fields in shape order; a value in another order (or with a key the shape lacks) is left to zod.
    const own = Object.keys(value);
    let next = 0;
    for (let f = 0; f < keys.length; f++) {
      const key = keys[f] as string;
      if (own[next] === key) {
        if (!(fields[f] as Acceptor)(value[key])) return false;
        next++;
      } else if (!optional[f]) return false;
    }
    return next === own.length && passes(value);
  };
}

/** A strict object whose keys may come in any order: every key one of the shape's, every required one there. */
function anyOrderObject(keys: string[], fields: Acceptor[], optional: boolean[], passes: (value: unknown) => boolean): Acceptor {
  const index = new Map(keys.map((k, f) => [k, f]));
  const required = optional.filter((o) => !o).length;
  return (value) => {
    if (!isPlain(value)) return false;
    let present = 0;
    const own = Object.keys(value);
    for (let i = 0; i < own.length; i++) {
      const key = own[i] as string;
      const f = index.get(key);
      if (f === undefined || !(fields[f] as Acceptor)(value[key])) return false;
      if (!optional[f]) present++;
    }
    return present === required && passes(value);
  };
}

function recordAcceptor(def: Def, reach: Reach): Acceptor {
  const keyType = def.keyType as Schema;
  if (keyType._zod.def.type !== 'string' || (keyType._zod.def.checks ?? []).length) return decline;
  const values = compile(def.valueType as Schema, reach);
  return (value) => {
    if (!isPlain(value)) return false;
    const own = Object.keys(value);
    for (let i = 0; i < own.length; i++) {
      const key = own[i] as string;
      if (key === '__proto__' || !values(value[key])) return false;
    }
    return true;
  };
}

function arrayAcceptor(def: Def, checks: readonly Check[], reach: Reach): Acceptor {
  const element = compile(def.element as Schema, reach);
  const passes = checksOf(checks);
  return (value) => {
    if (!Array.isArray(value)) return false;
    for (let i = 0; i < value.length; i++) if (!element(value[i])) return false;
    return passes(value);
  };
}

function compile(schema: Schema, reach: Reach): Acceptor {
  const def = schema._zod.def as Def;
  const checks = (def.checks ?? []) as readonly Check[];
  switch (def.type) {
    case 'string': {
      if ((def as { coerce?: boolean }).coerce) return decline;
      const passes = checksOf(allChecks(schema, checks));
      return (value) => typeof value === 'string' && passes(value);
    }
    case 'number': {
      if ((def as { coerce?: boolean }).coerce) return decline;
      const passes = checksOf(allChecks(schema, checks));
      // Zod refuses NaN and the infinities before any check.
      return (value) => typeof value === 'number' && Number.isFinite(value) && passes(value);
    }
    case 'literal':
    case 'enum':
    case 'boolean':
      return leaf(schema);
    case 'unknown':
      // Zod hands an unknown value through by reference, uncopied.
      return (value) => value !== undefined && checks.length === 0;
    case 'optional': {
      const inner = compile(def.innerType as Schema, reach);
      return (value) => value !== undefined && inner(value);
    }
    case 'object':
      return objectAcceptor(def, checks, reach);
    case 'record':
      return checks.length ? decline : recordAcceptor(def, reach);
    case 'array':
      return arrayAcceptor(def, checks, reach);
    case 'union': {
      if (checks.length) return decline;
      // Any option that accepts makes zod accept: a strict option's copy is the value's structure whichever option it is.
      const options = (def.options as Schema[]).map((o) => compile(o, reach));
      return (value) => options.some((accepts) => accepts(value));
    }
    default:
      return decline;
  }
}

/**
 * A fast yes for parsed data (JSON.parse, YAML: arrays of elements only) a
 * zod schema certainly accepts unchanged, built from the schema's own definition. A `false` decides nothing: ask zod.
 */
export function compileAcceptor(schema: Schema, reach: Reach = { anyOrder: false }): Acceptor {
  return compile(schema, reach);
}
