import type { UnmatchedRequestError } from '../replayer/index.js';

const show = (v: unknown): string => {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
};

/** A miss in words: the request the client sent, the nearest recorded one and the field that differs. */
export function describeMiss(miss: UnmatchedRequestError): string {
  const near = miss.nearest[0];
  if (!near) return `the client sent ${miss.method} ${miss.path}, and the recording holds no request at all`;
  const d = near.differs[0];
  const why = d
    ? `differs at ${d.path}: recorded ${show(d.recorded)}, sent ${show(d.actual)}`
    : 'is the same, but its answers were used up';
  return `the client sent ${miss.method} ${miss.path}, which the recording lacks; the nearest recorded request, #${near.seq} ${near.method} ${near.path}, ${why}`;
}

/**
 * Whether a miss is the client echoing what the variation changed: it sent back, in one body field, text it read
 * from the varied stream (a conversation's history). The client is right; the recording cannot answer it.
 */
export function echoesVariation(miss: UnmatchedRequestError, applied: readonly string[]): boolean {
  if (applied.length === 0) return false;
  const differs = miss.nearest[0]?.differs ?? [];
  return (
    differs.length > 0 && differs.every((d) => d.path.startsWith('body.') && typeof d.recorded === 'string' && typeof d.actual === 'string')
  );
}
