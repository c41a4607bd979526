import { indexList, type SecretEntry, SecretIndex } from './secret-index.js';

/**
 * The scrub list of a recording redacted piece by piece (the journal): grown
 * by each piece's new secrets in place of listing and indexing them all again,
 * and in the same order as a list built at once from the same secrets.
 */
export class GrowingList {
  private readonly byValue = new Map<string, SecretEntry>();
  private list: SecretEntry[] = [];
  private readonly index: SecretIndex;

  constructor(
    private readonly spellingsOf: (value: string) => readonly string[],
    private readonly minLength: number,
    placeholder: (name: string) => string,
  ) {
    this.index = new SecretIndex(placeholder);
    indexList(this.list, this.index);
  }

  /** The list with `added` secrets (in the order they were found) and their spellings: longest first, ties in order listed. */
  grow(added: readonly SecretEntry[]): SecretEntry[] {
    const fresh: SecretEntry[] = [];
    for (const [value, name] of added) {
      if (value.length < this.minLength) continue;
      const known = this.byValue.get(value);
      if (known) {
        // Found before as another secret's spelling: it keeps its place and takes this name, as a list built at once
        // does. A new entry, not a changed one: a list handed out before (a prepared interaction's) stays as it was.
        const next: SecretEntry = [value, name];
        this.byValue.set(value, next);
        const waiting = fresh.indexOf(known);
        if (waiting !== -1) fresh[waiting] = next;
        else {
          this.index.replace(known, next);
          this.list = this.list.map((e) => (e === known ? next : e));
          indexList(this.list, this.index);
        }
      } else this.listed(fresh, value, name);
      for (const spelling of this.spellingsOf(value)) if (!this.byValue.has(spelling)) this.listed(fresh, spelling, name);
    }
    if (fresh.length === 0) return this.list;
    this.index.add(fresh);
    this.list = merge(
      this.list,
      [...fresh].sort((a, b) => b[0].length - a[0].length),
    );
    indexList(this.list, this.index);
    return this.list;
  }

  private listed(fresh: SecretEntry[], value: string, name: string): void {
    const entry: SecretEntry = [value, name];
    this.byValue.set(value, entry);
    fresh.push(entry);
  }
}

/** Two lists in scrub order as one; on a tie in length, `older` comes first. */
function merge(older: SecretEntry[], newer: SecretEntry[]): SecretEntry[] {
  const out: SecretEntry[] = new Array(older.length + newer.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < older.length && j < newer.length)
    out[k++] =
      (newer[j] as SecretEntry)[0].length > (older[i] as SecretEntry)[0].length ? (newer[j++] as SecretEntry) : (older[i++] as SecretEntry);
  while (i < older.length) out[k++] = older[i++] as SecretEntry;
  while (j < newer.length) out[k++] = newer[j++] as SecretEntry;
  return out;
}
