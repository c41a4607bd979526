import { UsageError } from '../../../errors.js';
import type { StreamPayload } from './session-stream.js';

/**
 * Server changes the simulator can emulate, to test drift alerts:
 * `rename-event:FROM=TO`, `drop-field:TYPE.FIELD`, `retype-field:TYPE.FIELD`,
 * `swap-events:A,B`, `add-event:TYPE`, `status:METHOD /route/{id}=CODE`, `no-sentinel`.
 */
export type Mutation =
  | { kind: 'rename-event'; from: string; to: string }
  | { kind: 'drop-field'; type: string; field: string }
  | { kind: 'retype-field'; type: string; field: string }
  | { kind: 'swap-events'; first: string; second: string }
  | { kind: 'add-event'; type: string }
  | { kind: 'status'; route: string; status: number }
  | { kind: 'no-sentinel' };

const FORMS =
  'rename-event:FROM=TO, drop-field:TYPE.FIELD, retype-field:TYPE.FIELD, swap-events:A,B, add-event:TYPE, status:METHOD /route=CODE, no-sentinel';

function splitTypeField(spec: string, value: string): { type: string; field: string } {
  const dot = value.lastIndexOf('.');
  if (dot <= 0) throw new UsageError(`--mutate ${spec}: give TYPE.FIELD, e.g. session.status.blocked_on`);
  return { type: value.slice(0, dot), field: value.slice(dot + 1) };
}

/** Parses one `--mutate` value. */
export function parseMutation(spec: string): Mutation {
  if (spec === 'no-sentinel') return { kind: 'no-sentinel' };
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
    if (kind === 'add-event') return { kind, type: value };
    const status = /^(.+)=(\d{3})$/.exec(value);
    if (kind === 'status' && status) return { kind, route: (status[1] as string).trim(), status: Number(status[2]) };
  }
  throw new UsageError(`--mutate ${JSON.stringify(spec)} is not a mutation; use one of: ${FORMS}`);
}

/** Applies the stream mutations to each published event, holding one back for a swap. */
export class StreamMutator {
  private held: [string, StreamPayload] | undefined;

  constructor(readonly mutations: readonly Mutation[]) {}

  get dropsSentinel(): boolean {
    return this.mutations.some((m) => m.kind === 'no-sentinel');
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
          default:
            return [[t, p]];
        }
      });
    }
    return out;
  }
}
