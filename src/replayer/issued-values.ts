import { isRecord } from '../cassette/index.js';

/**
 * Values a server hands out (thread ids, session ids) that a client echoes
 * back. Clients that open alike cannot be told apart until they say what they
 * want, by which time each may have been handed another recording's id. The
 * replay then reads those ids as swapped: one permutation of recorded values
 * for all connections to a path, so every client keeps the names it was
 * given and no two clients are handed one name.
 */

/** Shorter strings (`ok`, `idle`, a count) say too little to be taken for an id. */
const MIN_ISSUED_LENGTH = 8;

/** A recorded value shown to clients under another recorded value's name, and back. */
export class IssuedNames {
  /** Recorded value → the name clients know it by (only the ones that differ). */
  private readonly shown = new Map<string, string>();
  private readonly known = new Map<string, string>();

  /** A copy to try swaps on. */
  clone(): IssuedNames {
    const copy = new IssuedNames();
    copy.adopt(this);
    return copy;
  }

  /** Takes over another set's names (a trial that was kept). */
  adopt(other: IssuedNames): void {
    for (const map of [this.shown, this.known]) map.clear();
    for (const [k, v] of other.shown) this.shown.set(k, v);
    for (const [k, v] of other.known) this.known.set(k, v);
  }

  /** The name clients know recorded value `v` by. */
  live(v: string): string {
    return this.shown.get(v) ?? v;
  }

  /** Swaps the names of two recorded values: `b` is now shown as `a` was, and `a` as `b` was. */
  swap(a: string, b: string): void {
    const [nameA, nameB] = [this.live(a), this.live(b)];
    this.set(a, nameB);
    this.set(b, nameA);
  }

  private set(value: string, name: string): void {
    if (value === name) {
      this.shown.delete(value);
      this.known.delete(name);
    } else {
      this.shown.set(value, name);
      this.known.set(name, value);
    }
  }

  /** Recorded text as clients should read it. */
  toLive(text: string): string {
    return substitute(text, this.shown);
  }

  /** Client text as the recording would read it. */
  toRecorded(text: string): string {
    return substitute(text, this.known);
  }
}

export interface IssuedValues {
  /** Whether the live client could have learned recorded value `value` (under its name) from what this connection was sent. */
  sentLive(value: string): boolean;
  /** Whether the recorded server handed `value` out in this session. */
  sentRecorded(value: string): boolean;
}

/**
 * Whether `live` (already read as recorded text) equals `recorded` once
 * values this replay handed the client are read as the ones the recorded
 * server handed out in their place. The swaps that takes go into `swaps`.
 */
export function equalModuloIssued(live: unknown, recorded: unknown, issued: IssuedValues, swaps: Map<string, string>): boolean {
  if (typeof live === 'string' && typeof recorded === 'string') {
    if (live === recorded) return true;
    const before = swaps.get(live);
    if (before !== undefined) return before === recorded;
    if (live.length < MIN_ISSUED_LENGTH || !issued.sentLive(live) || !issued.sentRecorded(recorded)) return false;
    swaps.set(live, recorded);
    return true;
  }
  if (Array.isArray(live) && Array.isArray(recorded))
    return live.length === recorded.length && live.every((v, i) => equalModuloIssued(v, recorded[i], issued, swaps));
  if (isRecord(live) && isRecord(recorded)) {
    const keys = Object.keys(live);
    if (keys.length !== Object.keys(recorded).length) return false;
    return keys.every((k) => Object.hasOwn(recorded, k) && equalModuloIssued(live[k], recorded[k], issued, swaps));
  }
  return live === recorded;
}

/** Rewrites every key of `pairs` found in `text` as its value, all at once (a swap stays a swap). */
function substitute(text: string, pairs: ReadonlyMap<string, string>): string {
  if (pairs.size === 0) return text;
  const keys = [...pairs.keys()].filter((k) => text.includes(k));
  if (keys.length === 0) return text;
  const pattern = new RegExp(
    keys
      .sort((a, b) => b.length - a.length)
      .map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|'),
    'g',
  );
  return text.replace(pattern, (m) => pairs.get(m) ?? m);
}
