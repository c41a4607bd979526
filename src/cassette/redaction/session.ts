import type { Cassette, SseItem } from '../schema.js';
import { composeVisitors, type InteractionVisitor, visitInteraction } from '../visit.js';
import { secretsOf } from './collect.js';
import { MIN_GLOBAL, type PieceContext, type Redactor, type RedactorSession, redactionPlaceholder, type SecretPair } from './config.js';
import { GrowingList } from './growing-secret-list.js';
import { scrub, scrubVisitor } from './scrub.js';
import type { SecretEntry } from './secret-index.js';
import { unfinishedAt } from './split.js';
import { streamTexts } from './split-secrets.js';
import { type Redaction, scrubList } from './state.js';

// How many parsed texts a session keeps for the next windows (more than a window's context of every open stream).
const RECENT_TEXTS = 4096;

/**
 * Scrubs a cassette of the secrets found in it and of those already in `all`,
 * which it extends; a session's `listed` is the list of every piece before, grown by what this one adds.
 */
export function redactWith(
  r: Redaction,
  c: Cassette,
  all: Map<string, string>,
  listed?: GrowingList,
  remembered?: Map<string, unknown>,
  piece?: PieceContext,
): Cassette {
  return r.pass.run(() => {
    r.pass.context = piece;
    const added: SecretEntry[] = [];
    for (const i of c.interactions)
      for (const [v, n] of secretsOf(r, i))
        if (!all.has(v)) {
          all.set(v, n);
          added.push([v, n]);
        }
    const global = listed ? listed.grow(added) : scrubList(r, all);
    const visitor = scrubVisitor(r, global);
    return {
      ...c,
      meta: { ...c.meta, target: scrub(r, c.meta.target, global) },
      interactions: c.interactions.map((i) => visitInteraction(i, visitor)),
    };
  }, remembered);
}

/** Redaction of one recording given in pieces (the journal's windows): every piece scrubbed of the secrets of all before it. */
export function redactorSession(r: Redaction): RedactorSession {
  const known = new Map<string, string>();
  const listed = new GrowingList(r.spellingsOf, MIN_GLOBAL, redactionPlaceholder);
  // Texts parsed lately: a window's items are read to look for unfinished secrets and then redacted, and
  // read again as the next windows' context. Kept for the latest texts only, as a recording goes on for hours.
  const recent = new Map<string, unknown>();
  const forget = () => {
    for (const text of recent.keys()) {
      if (recent.size <= RECENT_TEXTS) break;
      recent.delete(text);
    }
  };
  const unfinishedFrom = (items: SseItem[], before: SseItem[]) => {
    let from = items.length;
    for (const { pieces, text } of streamTexts([...before, ...items], r.pass.jsonOf, 1)) {
      const at = unfinishedAt(r, text, listed);
      if (at === -1) continue;
      // The item holding that character, or the first new one when an item already given holds it.
      const piece = pieces.find((p) => p.start + p.value.length > at) as (typeof pieces)[number];
      from = Math.min(from, Math.max(0, piece.event - before.length));
    }
    return from;
  };
  return {
    learnPairs(pairs) {
      const added: SecretEntry[] = [];
      for (const [v, n] of pairs)
        if (!known.has(v)) {
          known.set(v, n);
          added.push([v, n]);
        }
      if (added.length > 0) listed.grow(added);
    },
    scrub(i) {
      const list = listed.grow([]);
      return list.length === 0 ? i : r.pass.run(() => visitInteraction(i, scrubVisitor(r, list)), recent);
    },
    redact(c, context) {
      const out = redactWith(r, c, known, listed, recent, context);
      forget();
      return out;
    },
    unfinishedFrom: (items, before) => r.pass.run(() => unfinishedFrom(items, before), recent),
    unfinishedFramesFrom: (frames, before) =>
      r.pass.run(() => unfinishedFrom(r.pass.framesAsItems(frames), r.pass.framesAsItems(before)), recent),
  };
}

/** Two passes for a recording too big to copy whole: learn every interaction, then scrub each of every secret learnt. */
export function twoPass(
  r: Redaction,
  before?: { visitor: InteractionVisitor; text: (s: string) => string },
): ReturnType<Redactor['twoPass']> {
  const all = new Map<string, string>();
  // Grown as secrets are learnt, one interaction after another (the save-ahead), never listed again from scratch.
  const listed = new GrowingList(r.spellingsOf, MIN_GLOBAL, redactionPlaceholder);
  let global: [string, string][] = listed.grow([]);
  const learnPairs = (pairs: readonly SecretPair[]) => {
    const added: SecretEntry[] = [];
    for (const [v, n] of pairs)
      if (!all.has(v)) {
        all.set(v, n);
        added.push([v, n]);
      }
    // The list changes only with a new secret, so an unchanged list stays the same object.
    if (added.length > 0) global = listed.grow(added);
  };
  return {
    // Learnt from the interaction as given, and in the form `before` gives it, so no copy is made to learn.
    learn(i) {
      const pairs: SecretPair[] = [];
      for (const [v, n] of r.pass.run(() => secretsOf(r, i))) {
        pairs.push([v, n]);
        const mapped = before?.text(v);
        if (mapped !== undefined) pairs.push([mapped, n]);
      }
      learnPairs(pairs);
      return pairs;
    },
    learnPairs,
    list: () => global,
    version: () => listed.version,
    scrub(i) {
      const scrubbing = scrubVisitor(r, global);
      return r.pass.run(() => visitInteraction(i, before ? composeVisitors(before.visitor, scrubbing) : scrubbing));
    },
    target: (s) => scrub(r, s, global),
  };
}
