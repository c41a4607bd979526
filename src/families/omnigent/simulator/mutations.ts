import { UsageError } from '../../../errors.js';
import type { StreamPayload } from './session-stream.js';

/**
 * Server changes the simulator can emulate, to test drift alerts:
 * `rename-event:FROM=TO`, `drop-field:TYPE.FIELD`, `retype-field:TYPE.FIELD`,
 * `swap-events:A,B`, `add-event:TYPE`, `status:METHOD /route/{id}=CODE`, `no-sentinel`,
 * and the changes only a sequence or a value shows:
 * `duplicate-event:TYPE` (each sent twice), `enum-value:TYPE:FIELD=FROM>TO`,
 * `drop-field-when:TYPE:FIELD@KEY=VALUE` (only on some occurrences),
 * `drop-event-in:TYPE@KIND` (only in turns of one kind: reply, count, essay, tool),
 * `null-field:METHOD /route:FIELD` (always null in that route's body),
 * `empty-body:METHOD /route`, `open-after-done` (the stream stays open after `[DONE]`),
 * `stall-turns` (turns never end).
 */
export type Mutation =
  | { kind: 'rename-event'; from: string; to: string }
  | { kind: 'drop-field'; type: string; field: string }
  | { kind: 'retype-field'; type: string; field: string }
  | { kind: 'swap-events'; first: string; second: string }
  | { kind: 'add-event'; type: string }
  | { kind: 'status'; route: string; status: number }
  | { kind: 'no-sentinel' }
  | { kind: 'duplicate-event'; type: string }
  | { kind: 'enum-value'; type: string; field: string; from: string; to: string }
  | { kind: 'drop-field-when'; type: string; field: string; key: string; value: string }
  | { kind: 'drop-event-in'; type: string; turnKind: string }
  | { kind: 'null-field'; route: string; field: string }
  | { kind: 'empty-body'; route: string }
  | { kind: 'open-after-done' }
  | { kind: 'stall-turns' };

const FORMS =
  'rename-event:FROM=TO, drop-field:TYPE.FIELD, retype-field:TYPE.FIELD, swap-events:A,B, add-event:TYPE, status:METHOD /route=CODE, no-sentinel, ' +
  'duplicate-event:TYPE, enum-value:TYPE:FIELD=FROM>TO, drop-field-when:TYPE:FIELD@KEY=VALUE, drop-event-in:TYPE@KIND, ' +
  'null-field:METHOD /route:FIELD, empty-body:METHOD /route, open-after-done, stall-turns';

function splitTypeField(spec: string, value: string): { type: string; field: string } {
  const dot = value.lastIndexOf('.');
  if (dot <= 0) throw new UsageError(`--mutate ${spec}: give TYPE.FIELD, e.g. session.status.blocked_on`);
  return { type: value.slice(0, dot), field: value.slice(dot + 1) };
}

/** Parses one `--mutate` value. */
export function parseMutation(spec: string): Mutation {
  if (spec === 'no-sentinel' || spec === 'open-after-done' || spec === 'stall-turns') return { kind: spec };
  const colon = spec.indexOf(':');
  const kind = spec.slice(0, colon);
  const value = spec.slice(colon + 1);
  if (colon > 0 && value) {
    if (kind === 'rename-event' && value.includes('=')) {
      const [from, to] = value.split('=') as [string, string];
      return { kind, from, to };
    }
    if (kind === 'drop-field' || kind === 'retype-field') return { kind, ...splitTypeField(spec, value) };
    if (kind === 'swap-events' && value.includes(',')) {
      const [first, second] = value.split(',') as [string, string];
      return { kind, first, second };
    }
    if (kind === 'add-event' || kind === 'duplicate-event') return { kind, type: value };
    const enumValue = /^([^:]+):([^=]+)=([^>]+)>(.+)$/.exec(value);
    if (kind === 'enum-value' && enumValue) {
      const [, type, field, from, to] = enumValue as unknown as [string, string, string, string, string];
      return { kind, type, field, from, to };
    }
    const when = /^([^:]+):([^@]+)@([^=]+)=(.+)$/.exec(value);
    if (kind === 'drop-field-when' && when) {
      const [, type, field, key, v] = when as unknown as [string, string, string, string, string];
      return { kind, type, field, key, value: v };
    }
    const inKind = /^([^@]+)@(reply|count|essay|tool)$/.exec(value);
    if (kind === 'drop-event-in' && inKind) return { kind, type: inKind[1] as string, turnKind: inKind[2] as string };
    const routeField = /^(.+):([A-Za-z_][\w]*)$/.exec(value);
    if (kind === 'null-field' && routeField) return { kind, route: (routeField[1] as string).trim(), field: routeField[2] as string };
    if (kind === 'empty-body') return { kind, route: value.trim() };
    const status = /^(.+)=(\d{3})$/.exec(value);
    if (kind === 'status' && status) return { kind, route: (status[1] as string).trim(), status: Number(status[2]) };
  }
  throw new UsageError(`--mutate ${JSON.stringify(spec)} is not a mutation; use one of: ${FORMS}`);
}

/** Applies the stream mutations to each published event, holding one back for a swap. */
export class StreamMutator {
  private held: [string, StreamPayload] | undefined;

  constructor(readonly mutations: readonly Mutation[]) {}

  /** The kind of the turn being played (the scripted model's), for mutations that apply to some turns only. */
  turnKind: string | undefined;

  get dropsSentinel(): boolean {
    return this.mutations.some((m) => m.kind === 'no-sentinel');
  }

  get keepsStreamsOpen(): boolean {
    return this.mutations.some((m) => m.kind === 'open-after-done');
  }

  get stallsTurns(): boolean {
    return this.mutations.some((m) => m.kind === 'stall-turns');
  }

  /** What becomes of a route's JSON body: `undefined` keeps it, `null` empties it. */
  bodyFor(route: string): ((body: unknown) => unknown) | null | undefined {
    let out: ((body: unknown) => unknown) | null | undefined;
    for (const m of this.mutations) {
      if (m.kind === 'empty-body' && m.route === route) return null;
      if (m.kind === 'null-field' && m.route === route) {
        const field = m.field;
        const before = out;
        out = (body) => nullEvery(before ? before(body) : body, field);
      }
    }
    return out;
  }

  statusFor(route: string): number | undefined {
    for (const m of this.mutations) if (m.kind === 'status' && m.route === route) return m.status;
    return undefined;
  }

  apply(type: string, payload: StreamPayload): [string, StreamPayload][] {
    let out: [string, StreamPayload][] = [[type, payload]];
    for (const m of this.mutations) {
      out = out.flatMap(([t, p]): [string, StreamPayload][] => {
        switch (m.kind) {
          case 'rename-event':
            return [[t === m.from ? m.to : t, p]];
          case 'drop-field': {
            if (t !== m.type) return [[t, p]];
            const { [m.field]: _dropped, ...rest } = p;
            return [[t, rest]];
          }
          case 'retype-field':
            return [[t, t === m.type && m.field in p ? { ...p, [m.field]: String(p[m.field]) } : p]];
          case 'swap-events':
            if (t === m.first && !this.held) {
              this.held = [t, p];
              return [];
            }
            if (t === m.second && this.held) {
              const held = this.held;
              this.held = undefined;
              return [[t, p], held];
            }
            return [[t, p]];
          case 'add-event':
            return t === 'response.in_progress'
              ? [
                  [t, p],
                  [m.type, { note: 'emitted by a --mutate add-event' }],
                ]
              : [[t, p]];
          case 'duplicate-event':
            return t === m.type
              ? [
                  [t, p],
                  [t, p],
                ]
              : [[t, p]];
          case 'enum-value':
            return [[t, t === m.type ? replaceAt(p, m.field.split('.'), m.from, m.to) : p]];
          case 'drop-field-when': {
            if (t !== m.type || String(p[m.key]) !== m.value) return [[t, p]];
            const { [m.field]: _dropped, ...rest } = p;
            return [[t, rest]];
          }
          case 'drop-event-in':
            return t === m.type && this.turnKind === m.turnKind ? [] : [[t, p]];
          default:
            return [[t, p]];
        }
      });
    }
    return out;
  }
}

/** The payload with the value at a dot path replaced, when it is `from`. */
function replaceAt(p: StreamPayload, path: string[], from: string, to: string): StreamPayload {
  const [head, ...rest] = path as [string, ...string[]];
  const value = p[head];
  if (rest.length === 0) return value === from ? { ...p, [head]: to } : p;
  return value && typeof value === 'object' ? { ...p, [head]: replaceAt(value as StreamPayload, rest, from, to) } : p;
}

/** Every value under a key named `field`, at any depth, made null. */
function nullEvery(value: unknown, field: string): unknown {
  if (Array.isArray(value)) return value.map((v) => nullEvery(v, field));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === field ? null : nullEvery(v, field)]));
  return value;
}
