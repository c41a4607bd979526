import { INDEXED_FROM, indexList, type SecretEntry, SecretIndex } from './secret-index.js';

/**
 * The scrub list of a recording redacted piece by piece (the journal, the
 * save-ahead): grown by each piece's new secrets in place of listing and
 * indexing them all again, and in the same order as a list built at once
 * from the same secrets.
 */
export class GrowingList {
  private readonly byValue = new Map<string, SecretEntry>();
  private list: SecretEntry[] = [];
  private readonly index: SecretIndex;

  /**
   * `inPlace`: no list handed out is kept once the next is asked for (a redactor session), so one array grows in
   * place, its new entries appended: no copy per new secret. Past the size the index serves, its order is the
   * index's business; below it, the array is kept sorted.
   */
  constructor(
    private readonly spellingsOf: (value: string) => readonly string[],
    private readonly minLength: number,
    placeholder: (name: string) => string,
    private readonly inPlace = false,
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
          // A new array even in place (rare): a copy made of the list before, such as its byte spelling, must not pass for this one.
          this.list = this.list.map((e) => (e === known ? next : e));
          indexList(this.list, this.index);
        }
      } else this.listed(fresh, value, name);
      for (const spelling of this.spellingsOf(value)) if (!this.byValue.has(spelling)) this.listed(fresh, spelling, name);
    }
    if (fresh.length === 0) return this.list;
    this.index.add(fresh);
    if (this.inPlace) {
      for (const entry of fresh) this.list.push(entry);
      // A stable sort keeps ties in the order listed, as the index orders them.
      if (this.list.length < INDEXED_FROM) this.list.sort((a, b) => b[0].length - a[0].length);
      return this.list;
    }
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

/** Where `length` goes in a list sorted longest first: after every entry as long or longer. */
function boundary(list: readonly SecretEntry[], length: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as SecretEntry)[0].length >= length) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Two lists in scrub order as one; on a tie in length, `older` comes first.
 * `newer` is a few entries and `older` may be many thousands: `older` is
 * copied in runs (native copies), not entry by entry.
 */
function merge(older: SecretEntry[], newer: SecretEntry[]): SecretEntry[] {
  const runs: SecretEntry[][] = [];
  let from = 0;
  for (const entry of newer) {
    const at = boundary(older, entry[0].length);
    if (at > from) runs.push(older.slice(from, at));
    runs.push([entry]);
    from = Math.max(from, at);
  }
  if (from < older.length) runs.push(older.slice(from));
  return ([] as SecretEntry[]).concat(...runs);
}
