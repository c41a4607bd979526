import { z } from 'zod';

/**
 * An event selector: `type`, `type[field=value]` (a dot path into the event's
 * JSON data), or `*` for any event.
 */
export const selectorSchema = z.string().min(1);
export const scopeSchema = z.enum(['stream', 'turn']);

/**
 * What a rule is about, besides its stream or turn: a dot path in the event's
 * data (`a|b`: whichever the event has) whose value names a session, thread or
 * turn. The rule then holds for each value on its own, and events without one
 * are outside it.
 */
export const scopeKeySchema = z.string().regex(/^[^|\s]+(\|[^|\s]+)*$/, 'a dot path, or paths joined by |');

const meta = {
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  description: z.string(),
  source: z.string(),
  scope: scopeSchema,
  by: scopeKeySchema.optional(),
  /**
   * A rule that waits for a later event is not judged on a stream the client
   * closed (or a stop cut): it was not observed. Set this where a client
   * closing early is itself the fault.
   */
  mustHoldAtClose: z.boolean().optional(),
};

/** Every rule kind. Rules are data: listed, printed and serialised as they are. */
export const ruleSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('precedes'), ...meta, earlier: selectorSchema, later: selectorSchema }),
  z.strictObject({ kind: z.literal('exactlyOne'), ...meta, of: z.array(selectorSchema).min(1) }),
  z.strictObject({ kind: z.literal('atMostOne'), ...meta, of: selectorSchema }),
  z.strictObject({ kind: z.literal('terminal'), ...meta, of: z.array(selectorSchema).min(1), trailers: z.array(selectorSchema) }),
  z.strictObject({
    kind: z.literal('pairedBy'),
    ...meta,
    start: selectorSchema,
    end: z.array(selectorSchema).min(1),
    key: z.string(),
    /** An event that abandons what is open (a run that failed): a start it follows need not end (decision 0028). */
    abandonedBy: selectorSchema.optional(),
  }),
  z.strictObject({ kind: z.literal('never'), ...meta, event: selectorSchema, after: selectorSchema, until: selectorSchema.optional() }),
  z.strictObject({ kind: z.literal('eventually'), ...meta, event: selectorSchema, after: selectorSchema }),
  z.strictObject({ kind: z.literal('firstEvent'), ...meta, event: selectorSchema }),
  z.strictObject({ kind: z.literal('framing'), ...meta, forbid: z.array(z.enum(['id', 'retry', 'comment'])).min(1) }),
  z.strictObject({
    kind: z.literal('progression'),
    ...meta,
    event: selectorSchema,
    key: z.string().min(1),
    field: z.string().min(1),
    stages: z.array(z.array(z.string()).min(1)).min(2),
  }),
  z.strictObject({
    kind: z.literal('assembles'),
    ...meta,
    /** The delta events, their key (which text they extend) and the field holding the piece. */
    delta: selectorSchema,
    deltaKey: z.string().min(1),
    deltaField: z.string().min(1),
    /** The event carrying the whole text (or closing it), its key and the field holding the text. */
    whole: selectorSchema,
    wholeKey: z.string().min(1),
    wholeField: z.string().min(1).optional(),
    /**
     * What the pieces, joined, must be when the whole event comes: `json`, one JSON document (a tool's input streamed
     * in fragments; empty is no input). Decision 0030.
     */
    parses: z.literal('json').optional(),
  }),
  z.strictObject({
    kind: z.literal('sequence'),
    ...meta,
    field: z.string().min(1),
    start: z.number().int().optional(),
    step: z.number().int().positive().optional(),
  }),
]);
export type Rule = z.infer<typeof ruleSchema>;
export type RuleKind = Rule['kind'];

type Meta = { name: string; description: string; source: string; scope?: 'stream' | 'turn'; by?: string };
const withScope = <T extends Meta>(m: T) => ({ ...m, scope: m.scope ?? 'turn' });

/** The name, description and source a rule gets when its maker passes none: `precedes(a, b)` reads as written. */
const unnamed = (kind: string, ...parts: unknown[]): Meta => {
  const args = parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join(', ');
  const slug = `${kind}-${args}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return { name: slug, description: `${kind}(${args})`, source: 'unnamed rule' };
};

/** Metadata for stream-scoped rules that share one reference: `const m = streamMeta('ref §4'); precedes(a, b, m(name, description, 'OC1'))`. */
export const streamMeta =
  (ref: string) =>
  (name: string, description: string, source: string): Meta => ({ name, description, source: `${ref} ${source}`, scope: 'stream' });

/** Every `later` event has an `earlier` one before it. */
export const precedes = (earlier: string, later: string, m: Meta = unnamed('precedes', earlier, later)): Rule => ({
  kind: 'precedes',
  ...withScope(m),
  earlier,
  later,
});
/** `follows(b, a)` is `precedes(a, b)`: every b comes after some a. */
export const follows = (later: string, earlier: string, m: Meta = unnamed('follows', later, earlier)): Rule => precedes(earlier, later, m);
export const exactlyOne = (of: string[], m: Meta = unnamed('exactlyOne', of)): Rule => ({ kind: 'exactlyOne', ...withScope(m), of });
export const atMostOne = (of: string, m: Meta = unnamed('atMostOne', of)): Rule => ({ kind: 'atMostOne', ...withScope(m), of });
/** One terminal event per scope, and only the listed trailers after it. */
export const terminal = (of: string[], opts: { trailers: string[] }, m: Meta = unnamed('terminal', of, opts)): Rule => ({
  kind: 'terminal',
  ...withScope(m),
  of,
  trailers: opts.trailers,
});
/**
 * Every `start` has exactly one later `end` with the same `key` value (a dot path); with `abandonedBy`, a start
 * still open when such an event comes need not end.
 */
export const pairedBy = (
  start: string,
  end: string[],
  key: string,
  m: Meta = unnamed('pairedBy', start, end, key),
  opts: { abandonedBy?: string } = {},
): Rule => ({
  kind: 'pairedBy',
  ...withScope(m),
  start,
  end,
  key,
  ...opts,
});
/** No `event` after an `after` one (until an `until` one, when given, starts over). */
export const never = (event: string, opts: { after: string; until?: string }, m: Meta = unnamed('never', event, opts)): Rule => ({
  kind: 'never',
  ...withScope(m),
  event,
  after: opts.after,
  ...(opts.until !== undefined ? { until: opts.until } : {}),
});
export const eventually = (event: string, opts: { after: string }, m: Meta = unnamed('eventually', event, opts)): Rule => ({
  kind: 'eventually',
  ...withScope(m),
  event,
  after: opts.after,
});
export const firstEvent = (event: string, m: Meta = unnamed('firstEvent', event)): Rule => ({
  kind: 'firstEvent',
  ...withScope({ ...m, scope: m.scope ?? 'stream' }),
  event,
});
export const framing = (forbid: ('id' | 'retry' | 'comment')[], m: Meta = unnamed('framing', forbid)): Rule => ({
  kind: 'framing',
  ...withScope({ ...m, scope: m.scope ?? 'stream' }),
  forbid,
});

/**
 * The number at `field` strictly increases over the events that carry one
 * (by exactly `step` when given), starting at `start` when given.
 */
export const sequence = (
  field: string,
  opts: { start?: number; step?: number } = {},
  m: Meta = unnamed('sequence', field, opts),
): Rule => ({
  kind: 'sequence',
  ...withScope({ ...m, scope: m.scope ?? 'stream' }),
  field,
  ...opts,
});

/**
 * Among the `event`s with the same `key`, the value at `field` never moves back
 * through `stages` (each stage lists the values it allows): a tool's state goes
 * pending, running, then completed or error, however often each repeats.
 * `key` and `field` may list paths as `a|b`: the first one an event has (a task's state sits in one place in the
 * task and in another in its updates).
 */
export const progression = (
  event: string,
  opts: { key: string; field: string; stages: string[][] },
  m: Meta = unnamed('progression', event, opts),
): Rule => ({
  kind: 'progression',
  ...withScope({ ...m, scope: m.scope ?? 'stream' }),
  event,
  ...opts,
});

/**
 * Streamed text adds up: the `delta` pieces of a key, in order, are exactly the
 * text the `whole` event of that key carries at `field` (when any delta came), or, with `parses: 'json'`, form one
 * JSON document by then; no piece of a key comes after its whole event.
 */
export const assembles = (
  delta: { event: string; key: string; field: string },
  whole: { event: string; key: string; field?: string; parses?: 'json' },
  m: Meta = unnamed('assembles', delta, whole),
): Rule => ({
  kind: 'assembles',
  ...withScope({ ...m, scope: m.scope ?? 'stream' }),
  delta: delta.event,
  deltaKey: delta.key,
  deltaField: delta.field,
  whole: whole.event,
  wholeKey: whole.key,
  ...(whole.field === undefined ? {} : { wholeField: whole.field }),
  ...(whole.parses === undefined ? {} : { parses: whole.parses }),
});

/** A rule in one line, as reports print it. */
export function describeRule(rule: Rule): string {
  return rule.by === undefined ? describeKind(rule) : `${describeKind(rule)} per ${rule.by}`;
}

function describeKind(rule: Rule): string {
  switch (rule.kind) {
    case 'precedes':
      return `precedes(${rule.earlier}, ${rule.later})`;
    case 'exactlyOne':
      return `exactlyOne(${rule.of.join(' | ')})`;
    case 'atMostOne':
      return `atMostOne(${rule.of})`;
    case 'terminal':
      return `terminal(${rule.of.join(' | ')}; trailers ${rule.trailers.join(', ') || 'none'})`;
    case 'pairedBy':
      return `pairedBy(${rule.start} -> ${rule.end.join(' | ')} by ${rule.key}${rule.abandonedBy === undefined ? '' : ` unless ${rule.abandonedBy}`})`;
    case 'never':
      return `never(${rule.event} after ${rule.after}${rule.until === undefined ? '' : ` until ${rule.until}`})`;
    case 'eventually':
      return `eventually(${rule.event} after ${rule.after})`;
    case 'firstEvent':
      return `firstEvent(${rule.event})`;
    case 'framing':
      return `framing(no ${rule.forbid.join(', ')})`;
    case 'progression':
      return `progression(${rule.event} by ${rule.key}: ${rule.field} ${rule.stages.map((st) => st.join('|')).join(' -> ')})`;
    case 'assembles':
      return `assembles(${rule.delta}.${rule.deltaField} by ${rule.deltaKey} = ${rule.whole}${rule.wholeField === undefined ? '' : `.${rule.wholeField}`} by ${rule.wholeKey}${rule.parses === undefined ? '' : `, as ${rule.parses}`})`;
    case 'sequence':
      return `sequence(${rule.field}${rule.start === undefined ? '' : ` from ${rule.start}`}${rule.step === undefined ? ', increasing' : ` by ${rule.step}`})`;
  }
}
