import { abortableSleep } from '../abortable-sleep.js';
import type { EntryInfo, HttpAnswer, ReplayAnswer } from '../answer-types.js';
import type { WsOutgoing, WsSessionLike } from '../ws/index.js';
import type { FaultRule } from './schema.js';

/** Which of a stream's events go out, in what order, and whether the recorded end still follows them. */
export interface StreamCut {
  order: readonly number[];
  ownEnd: boolean;
}

/** The cut an event fault makes in a stream of `count` events; undefined when the fault is not about events. */
export function streamCut(rule: FaultRule, count: number): StreamCut | undefined {
  const all = [...Array(count).keys()];
  switch (rule.kind) {
    case 'duplicate-event': {
      const n = rule.event - 1;
      return { order: n < count ? [...all.slice(0, n + 1), n, ...all.slice(n + 1)] : all, ownEnd: true };
    }
    case 'drop-event':
      return { order: all.filter((n) => n !== rule.event - 1), ownEnd: true };
    case 'reset-after':
    case 'stall':
    case 'malformed':
      return rule.bytes === undefined ? { order: all.slice(0, rule.events ?? 0), ownEnd: false } : undefined;
    default:
      return undefined;
  }
}

/** The answer for a fault the server gives before taking the request (a status, a reset); undefined for the others. */
export function refusal(fault: { rule: FaultRule; index: number }, entry: EntryInfo): ReplayAnswer | undefined {
  if (fault.rule.kind === 'status') return statusAnswer(entry, fault.rule, fault.index);
  if (fault.rule.kind === 'reset') return { kind: 'reset', entry };
  return undefined;
}

/** A plain answer broken as the rule says (a stream's events were already cut by `streamCut`). */
export function breakAnswer(answer: HttpAnswer, rule: FaultRule): HttpAnswer {
  if (answer.kind === 'unmatched' || answer.kind === 'reset') return answer;
  switch (rule.kind) {
    case 'latency':
      return answer.kind === 'failure'
        ? { ...asResponse(answer), delayMs: rule.ms }
        : { ...answer, delayMs: (answer.delayMs ?? 0) + rule.ms };
    case 'reset-after':
    case 'stall':
    case 'malformed': {
      const end = rule.kind === 'reset-after' ? 'broken' : rule.kind === 'stall' ? 'client-closed' : 'malformed';
      if (answer.kind === 'stream') {
        const bytes = rule.bytes;
        const frames = bytes === undefined ? answer.frames : (signal: AbortSignal) => firstBytes(answer.frames(signal), bytes);
        return { ...answer, frames, end, trailers: undefined };
      }
      const plain = answer.kind === 'failure' ? asResponse(answer) : answer;
      return { ...plain, body: plain.body.subarray(0, rule.bytes ?? 0), end, trailers: undefined };
    }
    default:
      return answer;
  }
}

/** The rule's error status, its headers as given (names in lower case), and a body that says it was injected. */
export function statusAnswer(
  entry: EntryInfo,
  rule: Extract<FaultRule, { kind: 'status' }>,
  index: number,
): Extract<ReplayAnswer, { kind: 'response' }> {
  const headers = Object.entries(rule.headers ?? {}).map(([name, value]): [string, string] => [name.toLowerCase(), value]);
  if (!headers.some(([name]) => name === 'content-type')) headers.push(['content-type', 'application/json']);
  const message = `fault injected by tapedeck: status ${rule.status} (rule ${index + 1})`;
  const body = Buffer.from(rule.body ?? JSON.stringify({ error: { code: 'tapedeck_fault', message } }));
  return { kind: 'response', entry, status: rule.status, headers, body, delayMs: 0, end: 'complete', bodiless: false };
}

/** A recorded upstream failure (502) as a plain response, so a fault can cut or delay it like any other. */
function asResponse(answer: Extract<HttpAnswer, { kind: 'failure' }>): Extract<HttpAnswer, { kind: 'response' }> {
  const headers: [string, string][] = [['content-type', 'application/json']];
  return {
    kind: 'response',
    entry: answer.entry,
    status: answer.status,
    headers,
    body: answer.body,
    delayMs: 0,
    end: 'complete',
    bodiless: false,
  };
}

/** The stream's first `limit` bytes on the wire (after any content coding), then nothing. */
async function* firstBytes(frames: AsyncGenerator<Buffer>, limit: number): AsyncGenerator<Buffer> {
  let left = limit;
  if (left === 0) return;
  for await (const chunk of frames) {
    if (chunk.byteLength >= left) {
      yield chunk.subarray(0, left);
      return;
    }
    left -= chunk.byteLength;
    yield chunk;
  }
}

/** A WebSocket session broken as the rule says: a late start, or after some server frames a close, a drop or silence. */
export function breakSession(session: WsSessionLike, rule: FaultRule): WsSessionLike {
  const limit = 'frames' in rule ? (rule.frames ?? 0) : 0;
  const breaks = rule.kind === 'ws-close' || rule.kind === 'reset-after' || rule.kind === 'stall';
  const last = (): WsOutgoing | 'stall' =>
    rule.kind === 'ws-close'
      ? { close: { code: rule.code, reason: rule.reason ?? '' } }
      : rule.kind === 'stall'
        ? 'stall'
        : { terminate: true };
  async function* outgoing(signal: AbortSignal): AsyncGenerator<WsOutgoing> {
    if (rule.kind === 'latency') await abortableSleep(rule.ms, signal);
    let sent = 0;
    if (!breaks || limit > 0)
      for await (const out of session.outgoing(signal)) {
        yield out;
        if ('data' in out) sent += 1;
        if (!('data' in out) || (breaks && sent >= limit)) break;
      }
    if (!breaks || (sent < limit && limit > 0)) return;
    const end = last();
    if (end === 'stall') await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    else yield end;
  }
  return { end: session.end, receive: (data, binary) => session.receive(data, binary), outgoing };
}
