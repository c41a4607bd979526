import type { SseItem, WsFrame } from '../schema.js';
import { redactionPlaceholder } from './config.js';
import type { GrowingList } from './growing-secret-list.js';
import { secretsIn } from './secret-index.js';
import { mergeOverlapping, type SecretFinding } from './secret-rules.js';
import { cutSpanning, type StreamText, spanning } from './split-secrets.js';
import type { Redaction } from './state.js';

// How far back from a stream's end a secret still being streamed is looked for, and the shortest start of a known
// one held back (three characters of a secret tell nothing).
const UNFINISHED_WITHIN = 256;
const MIN_UNFINISHED = 4;
// The whole end line of a PEM block: until it has come, the block is open.
const BLOCK_END = /-----END[ A-Za-z0-9_-]{0,100}-----/;
// What the rest of a credential may look like: mixed-case letters and digits, or hex. A finding of the rules
// that runs from a stream's end into one of these is a credential that may not be over yet.
const CREDENTIAL_TAILS = ['Aa0Bb1Cc2Dd3Ee4Ff5Gg6Hh7Ii8Jj9Kk0Ll1Mm2Nn3Oo4Pp5', '0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f'];

/** Where each secret of the list stands in the text, as findings named as the secret's placeholder is. */
function knownIn(text: string, secrets: [string, string][]): SecretFinding[] {
  const out: SecretFinding[] = [];
  for (const [value, name] of secretsIn(text, secrets, redactionPlaceholder))
    for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + value.length))
      out.push({ kind: name, value, start: at, end: at + value.length });
  return out;
}

/**
 * The items with every secret split across them cut out, before each is scrubbed alone (which could replace the
 * part of a secret one item holds and leave the rest): what the rules find, and the secrets already known (a
 * token from a header that a model spells out in pieces).
 */
export function scrubSplit(r: Redaction, events: SseItem[], secrets: [string, string][], beforeItems?: SseItem[]): SseItem[] {
  const before = beforeItems ?? r.pass.itemsBefore(events);
  const findingsOf = (text: string) => r.finder.findingsOf(text);
  const found: { stream: StreamText; finding: SecretFinding }[] = [];
  for (const { stream, findings } of r.pass.searched(events, before)) {
    const known = knownIn(stream.text, secrets);
    const all = known.length > 0 ? mergeOverlapping([...findings, ...known], stream.text) : findings;
    // Left to the scrub of each item: what the rules or the list find in an item alone.
    const alone = (text: string) => (known.length > 0 ? [...findingsOf(text), ...knownIn(text, secrets)] : findingsOf(text));
    for (const finding of spanning(stream, all, alone)) found.push({ stream, finding });
  }
  if (found.length === 0) return events;
  if (before.length === 0) return cutSpanning(events, r.pass.jsonOf, found, redactionPlaceholder);
  return cutSpanning([...before, ...events], r.pass.jsonOf, found, redactionPlaceholder, before.length).slice(before.length);
}

/** The frames with every secret split across them cut out, before each is scrubbed alone. */
export function scrubSplitFrames(r: Redaction, frames: WsFrame[], secrets: [string, string][]): WsFrame[] {
  const items = r.pass.framesAsItems(frames);
  const cut = scrubSplit(r, items, secrets, r.pass.framesBefore(frames));
  if (cut === items) return frames;
  return frames.map((f, k) => {
    const data = cut[k]?.data;
    if (data === items[k]?.data || data === undefined) return f;
    return f.json !== undefined ? { ...f, json: JSON.parse(data) as unknown } : { ...f, text: data };
  });
}

/**
 * The first character of `text` from which a secret may be unfinished: an open private-key block, a finding the
 * rules make of the text's end followed by more of a credential, the start of a known secret. -1 when none.
 */
export function unfinishedAt(r: Redaction, text: string, listed: GrowingList): number {
  const block = text.lastIndexOf('-----BEGIN');
  if (block !== -1 && !BLOCK_END.test(text.slice(block))) return block;
  const from = Math.max(0, text.length - UNFINISHED_WITHIN);
  const tail = text.slice(from);
  let at = -1;
  for (const more of CREDENTIAL_TAILS)
    for (const f of r.finder.find(tail + more))
      if (f.start < tail.length && f.end > tail.length && (at === -1 || f.start < at)) at = f.start;
  const known = listed.startedAt(tail, 0, MIN_UNFINISHED);
  if (known !== -1 && (at === -1 || known < at)) at = known;
  return at === -1 ? -1 : from + at;
}
