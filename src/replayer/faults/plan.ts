import { createHash } from 'node:crypto';
import type { FaultRule, InjectedFault } from './schema.js';

/** What an answer carries, as far as faults go: plain HTTP, an SSE stream, or a WebSocket session. */
export type Transport = 'http' | 'sse' | 'websocket';

/** How many fired faults are kept for a report (the count goes on). */
export const FAULTS_KEPT = 1000;

/** A fault chosen for one answer: the rule and its place in the list. */
export interface ChosenFault {
  rule: FaultRule;
  index: number;
}

/**
 * Which answers the rules break, and a log of those they broke. Calls are counted per rule among the answers
 * its selectors and its kind fit, so `call: 2` is the second such answer whatever else the client asked.
 */
export class FaultPlan {
  /** The latest faults that fired (at most `FAULTS_KEPT`); `count` has them all. */
  readonly injected: InjectedFault[] = [];
  count = 0;
  private readonly calls: number[];
  private readonly fired: number[];
  private readonly paths: (RegExp | undefined)[];

  constructor(
    private readonly rules: readonly FaultRule[],
    private readonly seed = 0,
    private readonly onFault?: (fault: InjectedFault) => void,
  ) {
    this.calls = rules.map(() => 0);
    this.fired = rules.map(() => 0);
    this.paths = rules.map((r) => (r.path === undefined ? undefined : pathGlob(r.path)));
  }

  /** The first rule that breaks this answer, counted and logged; undefined to answer as recorded. */
  choose(
    request: { method: string; path: string },
    entry: { cassette: string; seq: number },
    transport: Transport,
  ): ChosenFault | undefined {
    const pathname = request.path.split('?')[0] ?? '';
    for (const [index, rule] of this.rules.entries()) {
      if (!fits(rule, transport)) continue;
      if (rule.method !== undefined && rule.method.toUpperCase() !== request.method.toUpperCase()) continue;
      if (this.paths[index] && !this.paths[index].test(pathname)) continue;
      if (rule.cassette !== undefined && rule.cassette !== entry.cassette) continue;
      if (rule.seq !== undefined && rule.seq !== entry.seq) continue;
      const call = ++(this.calls[index] as number);
      if (rule.call !== undefined && rule.call !== call) continue;
      if (rule.times !== undefined && (this.fired[index] as number) >= rule.times) continue;
      if (rule.probability !== undefined && draw(this.seed, index, call) >= rule.probability) continue;
      this.fired[index] = (this.fired[index] as number) + 1;
      this.record({ rule: index, kind: rule.kind, method: request.method.toUpperCase(), path: request.path, ...entry, call });
      return { rule, index };
    }
    return undefined;
  }

  /** How many times each rule fired, by position. */
  firedByRule(): readonly number[] {
    return this.fired;
  }

  private record(fault: InjectedFault): void {
    this.count += 1;
    this.injected.push(fault);
    if (this.injected.length > FAULTS_KEPT) this.injected.shift();
    this.onFault?.(fault);
  }
}

/** Whether a rule's kind can break this transport's answer (an SSE event count means nothing to a JSON body). */
function fits(rule: FaultRule, transport: Transport): boolean {
  switch (rule.kind) {
    case 'status':
    case 'reset':
    case 'latency':
      return true;
    case 'ws-close':
      return transport === 'websocket';
    case 'duplicate-event':
    case 'drop-event':
      return transport === 'sse';
    case 'malformed':
      return transport !== 'websocket' && (rule.events === undefined || transport === 'sse');
    default:
      if (rule.frames !== undefined) return transport === 'websocket';
      if (rule.events !== undefined) return transport === 'sse';
      return rule.bytes === undefined || transport !== 'websocket';
  }
}

/** A path glob as a pattern: `*` is any text within a segment, `**` any run of segments. */
function pathGlob(glob: string): RegExp {
  const pattern = glob
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${pattern}$`);
}

/** A number in [0, 1) fixed by the seed, the rule and the call: a rerun breaks the same calls. */
function draw(seed: number, rule: number, call: number): number {
  const digest = createHash('sha256').update(`${seed}:${rule}:${call}`).digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
}
