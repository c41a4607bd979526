/**
 * Which of many known secrets a text may hold, found in one pass over the
 * text. Scrubbing asked `text.includes(secret)` for every spelling of every
 * secret in every string: a recording whose answers each carry a fresh token
 * made each new body cost more than the last (a thousand exchanges in, one
 * body took 60 ms to clean). The index looks a text up by each of its
 * two-character starts instead, and only for a list long enough to need it.
 */

/** A secret's spelling and the name its placeholder carries. */
export type SecretEntry = [string, string];

/** Below this many entries, asking each one is cheaper than a pass over the text. */
export const INDEXED_FROM = 16;

const pairHash = (c0: number, c1: number) => (c0 * 31 + c1) & 0xffff;
// Kept within V8's small integers, so the map's keys are never boxed; a clash only costs a `startsWith`.
const pairKey = (c0: number, c1: number) => (c0 & 0x3fff) * 65536 + c1;

/** Scrub order: longest first, then in the order the entries were listed; or only the order they were listed. */
const byScrubOrder = (order: Map<SecretEntry, number>, longestFirst: boolean) =>
  longestFirst
    ? (a: SecretEntry, b: SecretEntry) => b[0].length - a[0].length || (order.get(a) as number) - (order.get(b) as number)
    : (a: SecretEntry, b: SecretEntry) => (order.get(a) as number) - (order.get(b) as number);

/** An index of secret entries that grows as a recording finds more. */
export class SecretIndex {
  /** One bit per hashed pair of leading characters: most positions of a text are rejected here. */
  private readonly filter = new Uint8Array(65536);
  private readonly byStart = new Map<number, SecretEntry[]>();
  /** Entries asked in every text: too short to index, or able to appear only once a placeholder is written there. */
  private readonly always = new Set<SecretEntry>();
  private readonly order = new Map<SecretEntry, number>();
  private readonly placeholders = new Set<string>();
  private readonly compare: (a: SecretEntry, b: SecretEntry) => number;

  /**
   * `longestFirst`: entries are added in any order and scrub longest first (a growing list); otherwise they are
   * added in the order they scrub (a list given whole).
   */
  constructor(
    private readonly placeholder: (name: string) => string,
    longestFirst = true,
  ) {
    this.compare = byScrubOrder(this.order, longestFirst);
  }

  /** Adds entries, which scrub after every entry added before them of the same length. */
  add(entries: Iterable<SecretEntry>): void {
    for (const entry of entries) {
      this.order.set(entry, this.order.size);
      this.learnName(entry[1]);
      const value = entry[0];
      if (value.length < 2 || this.mayBeWritten(value)) {
        this.always.add(entry);
        continue;
      }
      const c0 = value.charCodeAt(0);
      const c1 = value.charCodeAt(1);
      this.filter[pairHash(c0, c1)] = 1;
      const key = pairKey(c0, c1);
      const bucket = this.byStart.get(key);
      if (bucket) bucket.push(entry);
      else this.byStart.set(key, [entry]);
    }
  }

  /** Puts `next` where `entry` stood (a spelling of one secret, found later as a secret of its own, takes its name). */
  replace(entry: SecretEntry, next: SecretEntry): void {
    this.order.set(next, this.order.get(entry) as number);
    this.order.delete(entry);
    if (this.always.delete(entry)) this.always.add(next);
    const bucket = entry[0].length < 2 ? undefined : this.byStart.get(pairKey(entry[0].charCodeAt(0), entry[0].charCodeAt(1)));
    const at = bucket?.indexOf(entry) ?? -1;
    if (bucket && at !== -1) bucket[at] = next;
    this.learnName(next[1]);
  }

  /** The entries `text` holds, and those a replacement could bring into it, in scrub order. */
  in(text: string): SecretEntry[] {
    let hits: SecretEntry[] | undefined;
    const { filter, byStart } = this;
    for (let i = 0; i + 1 < text.length; i++) {
      const c0 = text.charCodeAt(i);
      const c1 = text.charCodeAt(i + 1);
      if (filter[pairHash(c0, c1)] === 0) continue;
      const bucket = byStart.get(pairKey(c0, c1));
      if (!bucket) continue;
      for (const entry of bucket) if (text.startsWith(entry[0], i)) (hits ??= []).push(entry);
    }
    if (!hits && this.always.size === 0) return NONE;
    return [...new Set([...(hits ?? []), ...this.always])].sort(this.compare);
  }

  /**
   * The first position from `from` on where the rest of `text`, `minimum` characters or more, is the start of an
   * entry and not all of it: a secret whose remainder has yet to come. -1 when there is none.
   */
  startedAt(text: string, from: number, minimum: number): number {
    const { filter, byStart } = this;
    for (let i = Math.max(0, from); i + minimum <= text.length; i++) {
      const rest = text.length - i;
      const c0 = text.charCodeAt(i);
      const c1 = text.charCodeAt(i + 1);
      if (filter[pairHash(c0, c1)] !== 0)
        for (const entry of byStart.get(pairKey(c0, c1)) ?? NONE)
          if (entry[0].length > rest && entry[0].startsWith(text.slice(i))) return i;
      for (const entry of this.always) if (entry[0].length > rest && entry[0].startsWith(text.slice(i))) return i;
    }
    return -1;
  }

  // A scrub writes placeholders into the text: an entry that could then appear across or inside one must be
  // asked every time, as a loop over the whole list would find it there.
  private mayBeWritten(value: string): boolean {
    if (value.includes('<') || value.includes('>')) return true;
    for (const p of this.placeholders) if (p.includes(value)) return true;
    return false;
  }

  private learnName(name: string): void {
    const p = this.placeholder(name);
    if (this.placeholders.has(p)) return;
    this.placeholders.add(p);
    // Rare (one per kind of secret): entries indexed before may now be written by this placeholder.
    for (const bucket of this.byStart.values()) for (const entry of bucket) if (p.includes(entry[0])) this.always.add(entry);
  }
}

const NONE: SecretEntry[] = [];
const indexes = new WeakMap<readonly SecretEntry[], SecretIndex>();

/** Ties `list` (in scrub order) to an index of its entries, built now or kept up by its owner as it grows. */
export function indexList(list: readonly SecretEntry[], index: SecretIndex): void {
  indexes.set(list, index);
}

/**
 * The entries of `list` (in scrub order) that `text` holds, plus any a
 * replacement could bring into it: the entries a scrub loop over the whole
 * list would act on, in the same order (a grown list's order is its index's).
 */
export function secretsIn(text: string, list: readonly SecretEntry[], placeholder: (name: string) => string): readonly SecretEntry[] {
  if (list.length < INDEXED_FROM) return list;
  let index = indexes.get(list);
  if (!index) {
    index = new SecretIndex(placeholder, false);
    index.add(list);
    indexes.set(list, index);
  }
  return index.in(text);
}
