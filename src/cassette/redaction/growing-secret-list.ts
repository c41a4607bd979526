import { INDEXED_FROM, indexList, type SecretEntry, SecretIndex } from './secret-index.js';

/**
 * The scrub list of a recording redacted piece by piece (the journal's
 * session, the save-ahead's two passes): grown by each piece's new secrets in
 * place of listing and indexing them all again, with the same entries and the
 * same scrub order as a list built at once from the same secrets. One array
 * grows in place, its new entries appended: past the size the index serves,
 * scrub order is the index's (and `inScrubOrder` gives it as a list); below
 * it, the array is kept sorted, as it is asked entry by entry.
 */
export class GrowingList {
  private readonly byValue = new Map<string, SecretEntry>();
  private list: SecretEntry[] = [];
  private readonly index: SecretIndex;
  private changes = 0;

  constructor(
    private readonly spellingsOf: (value: string) => readonly string[],
    private readonly minLength: number,
    placeholder: (name: string) => string,
  ) {
    this.index = new SecretIndex(placeholder);
    indexList(this.list, this.index);
  }

  /** Changes whenever the list does: what a holder of the list compares to know it still holds the same one. */
  get version(): number {
    return this.changes;
  }

  /** The list with `added` secrets (in the order they were found) and their spellings. */
  grow(added: readonly SecretEntry[]): SecretEntry[] {
    const fresh: SecretEntry[] = [];
    for (const [value, name] of added) {
      if (value.length < this.minLength) continue;
      const known = this.byValue.get(value);
      if (known && known[1] === name) {
        // Listed already, under this very name: nothing changes.
      } else if (known) {
        // Found before as another secret's spelling: it keeps its place and takes this name, as a list built at once does.
        const next: SecretEntry = [value, name];
        this.byValue.set(value, next);
        const waiting = fresh.indexOf(known);
        if (waiting !== -1) fresh[waiting] = next;
        else {
          this.index.replace(known, next);
          // A new array (rare): a copy made of the list before, such as its byte spelling, must not pass for this one.
          this.list = this.list.map((e) => (e === known ? next : e));
          indexList(this.list, this.index);
          this.changes++;
        }
      } else this.listed(fresh, value, name);
      for (const spelling of this.spellingsOf(value)) if (!this.byValue.has(spelling)) this.listed(fresh, spelling, name);
    }
    if (fresh.length === 0) return this.list;
    this.changes++;
    this.index.add(fresh);
    for (const entry of fresh) this.list.push(entry);
    // A stable sort keeps ties in the order listed, as the index orders them.
    if (this.list.length < INDEXED_FROM) this.list.sort(longestFirst);
    return this.list;
  }

  /** The first position from `from` on where `text` ends in the start of a listed spelling (`minimum` characters or more); -1 if none. */
  startedAt(text: string, from: number, minimum: number): number {
    return this.index.startedAt(text, from, minimum);
  }

  private listed(fresh: SecretEntry[], value: string, name: string): void {
    const entry: SecretEntry = [value, name];
    this.byValue.set(value, entry);
    fresh.push(entry);
  }
}

const longestFirst = (a: readonly [string, string], b: readonly [string, string]) => b[0].length - a[0].length;

/**
 * A copy of a list in scrub order: a grown list's array holds ties in the order
 * listed, so a stable sort by length is that order (a list already in it comes back as it was).
 */
export function inScrubOrder<T extends readonly [string, string]>(list: readonly T[]): T[] {
  return [...list].sort(longestFirst);
}
