import type { IncomingMessage } from 'node:http';
import type { Agent } from 'undici';
import { errors as undiciErrors } from 'undici';
import type { Body, Interaction, SseItem } from '../../cassette/index.js';
import type { SseFrame } from '../../sse/index.js';
import type { Forwarding } from '../forward.js';
import type { Later } from '../later.js';
import type { TargetUrl } from '../target.js';
import type { Timeline } from '../timeline.js';

/** What every exchange of one recording proxy shares. */
export interface ProxyContext {
  target: TargetUrl;
  timeline: Timeline;
  later: Later;
  agent: Agent;
  log: (line: string) => void;
  /** One line per exchange once it ends, when asked for. */
  logExchange?: ((line: string) => void) | undefined;
  /** A request's path as a log line may show it: secrets replaced, as the recording will have them. */
  shown: (request: Interaction['request']) => string;
  /** Bodies stay raw bytes while recording; choosing JSON, text or base64 waits for a snapshot. */
  rawBodies: WeakMap<object, Buffer | Body>;
  /** Says once per coding that a body in it is saved as it came, unredacted. */
  tellUnreadable: (interaction: Interaction, contentEncoding: string | undefined) => void;
}

export type StopReason = 'client' | 'proxy';

/** Why an exchange stopped early, once it has, its request upstream, once it left, and whether its client is still uploading. */
export interface Exchange {
  stopReason: StopReason | undefined;
  upstream: Forwarding | undefined;
  uploading: boolean;
}

export function stoppedBy(reason: StopReason): Error {
  return new Error(reason === 'client' ? 'the client went away' : 'the proxy is stopping');
}

/** A parsed frame as a stored item, its fields in the schema's order (as loading gives them back, so nothing is copied). */
export function toItem(frame: SseFrame, at: number, after: number): SseItem {
  if (frame.kind === 'comment') return { at, after, comment: frame.comment, ...(frame.raw !== undefined ? { raw: frame.raw } : {}) };
  const { event, data, id, retry, raw } = frame;
  return {
    at,
    after,
    ...(event !== undefined ? { event } : {}),
    ...(id !== undefined ? { id } : {}),
    ...(retry !== undefined ? { retry } : {}),
    ...(data !== undefined ? { data } : {}),
    ...(raw !== undefined ? { raw } : {}),
  };
}

export function failureCode(err: unknown): string {
  if (err instanceof undiciErrors.HeadersTimeoutError) return 'upstream_timeout';
  const code = (err as { code?: string; cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH') return 'upstream_unreachable';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'upstream_reset';
  return 'upstream_error';
}

export function errorText(err: unknown): string {
  const e = err as Error & { cause?: Error };
  return e.cause?.message ? `${e.message}: ${e.cause.message}` : e.message;
}

/** The whole request body; a client that leaves mid-upload rejects with what had arrived as `partial`. */
export async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch (err) {
    throw Object.assign(new Error((err as Error).message), { partial: Buffer.concat(chunks) });
  }
  if (!req.complete) throw Object.assign(new Error('aborted'), { partial: Buffer.concat(chunks) });
  return Buffer.concat(chunks);
}
