import { type Cassette, readJson, type WsFrame, type WsSession } from '../cassette/index.js';
import { lastAtOrBelow } from '../fs/sorted-search.js';
import { isResourceKey } from './stream-causes.js';

/**
 * What a server frame waits for on another connection (decision 0004, amended): the latest client frame of any
 * other session, at or before its stamp, that names a resource it names too (a thread id). omnigent's codex
 * transport starts a turn over a fresh connection and hears of it on the one that holds the thread; two clients
 * on threads of their own wait for nothing of each other.
 */

/** The id-like strings of a JSON value (a thread or turn id), to a few levels down. */
export function jsonKeys(value: unknown, depth = 4, out: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') {
    if (value.length <= 128 && isResourceKey(value)) out.add(value);
  } else if (depth > 0 && value !== null && typeof value === 'object')
    for (const v of Array.isArray(value) ? value : Object.values(value)) jsonKeys(v, depth - 1, out);
  return out;
}

/** The keys a frame names: in its JSON, or in its text when that is JSON kept as written (Python's `", "` spacing). */
function frameKeys(f: WsFrame): Set<string> {
  if (f.json !== undefined) return jsonKeys(f.json);
  const text = f.text?.trimStart();
  if (!text || (text[0] !== '{' && text[0] !== '[')) return new Set();
  const read = readJson(text);
  return read ? jsonKeys(read.json) : new Set();
}

/** Per resource key, the client frames naming it, in increasing seq order, with the session of each. */
type KeyIndex = Map<string, { seqs: number[]; sessions: WsSession[] }>;

const indexes = new WeakMap<Cassette, KeyIndex>();

function keyIndex(cassette: Cassette): KeyIndex {
  let index = indexes.get(cassette);
  if (index) return index;
  const found: { key: string; seq: number; session: WsSession }[] = [];
  for (const i of cassette.interactions) {
    const session = i.response?.websocket;
    if (!session) continue;
    for (const f of session.frames)
      if (f.from === 'client' && f.seq !== undefined) for (const key of frameKeys(f)) found.push({ key, seq: f.seq, session });
  }
  found.sort((a, b) => a.seq - b.seq);
  index = new Map();
  for (const { key, seq, session } of found) {
    const entry = index.get(key) ?? { seqs: [], sessions: [] };
    entry.seqs.push(seq);
    entry.sessions.push(session);
    index.set(key, entry);
  }
  indexes.set(cassette, index);
  return index;
}

/** For each server frame of `session` (by its index in the frames), the other connection's client frame it waits for. */
export function frameCauses(cassette: Cassette, session: WsSession): Map<number, number> {
  const index = keyIndex(cassette);
  const out = new Map<number, number>();
  if (index.size === 0) return out;
  session.frames.forEach((frame: WsFrame, k) => {
    if (frame.from !== 'server') return;
    let cause = -1;
    for (const key of frameKeys(frame)) {
      const entry = index.get(key);
      if (!entry) continue;
      // The latest at or before the stamp, passing over this session's own frames (its own rule covers those).
      let at = lastAtOrBelow(entry.seqs, frame.after);
      while (at >= 0 && entry.sessions[at] === session) at--;
      if (at >= 0) cause = Math.max(cause, entry.seqs[at] as number);
    }
    if (cause !== -1) out.set(k, cause);
  });
  return out;
}
