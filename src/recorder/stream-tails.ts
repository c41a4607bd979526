/** Past this many characters of data held back in one stream, its items are written anyway: a journal must not fall behind for long. */
const HOLD_LIMIT = 8192;
/**
 * What a stream wrote last is read again with its next items, so a secret begun there, or the name a rule reads
 * before it (`password: `, spelt a character an item), is still found: this many characters of data,
 */
const CONTEXT_CHARS = 1024;
/** and at most this many items. */
const CONTEXT_ITEMS = 32;

interface Tail<T> {
  /** Items written last, kept as context. */
  written: T[];
  /** Items not written yet: they may hold the start of a secret that the next ones finish. */
  held: T[];
}

/**
 * The journal writes a stream window by window, each redacted alone, while a
 * model may spell a secret out across windows: `sk-Ab3d` in one, the rest in
 * the next. Each window's pieces would pass as harmless, and the secret reach
 * disk in two halves. So a stream's last items are held back while they may
 * hold the start of a secret (`unfinishedFrom`), and written with the items
 * that finish it, redacted together; the items written last are read again
 * as context.
 */
export class StreamTails<T> {
  private readonly tails = new Map<number, Tail<T>>();

  /** `size`: an item's characters of data, what the limits count. Items are SSE items or WebSocket frames. */
  constructor(
    private readonly unfinishedFrom: (items: T[], before: T[]) => number,
    private readonly size: (item: T) => number,
  ) {}

  /**
   * The items of stream `seq` to write now, held ones first, and those written last before them (context, not
   * to be written again); the rest are held. `final`: the stream is over, or the journal closing, so none is held.
   */
  next(seq: number, items: T[], final: boolean): { write: T[]; before: T[] } {
    const tail = this.tails.get(seq) ?? { written: [], held: [] };
    const all = tail.held.length > 0 ? [...tail.held, ...items] : items;
    let from = final || all.length === 0 ? all.length : this.unfinishedFrom(all, tail.written);
    if (from < all.length && this.sizeOf(all.slice(from)) > HOLD_LIMIT) from = all.length;
    const write = all.slice(0, from);
    const before = tail.written;
    if (final) this.tails.delete(seq);
    else this.tails.set(seq, { written: write.length > 0 ? this.lastOf([...before, ...write]) : before, held: all.slice(from) });
    return { write, before };
  }

  private sizeOf(items: readonly T[]): number {
    return items.reduce((n, e) => n + this.size(e), 0);
  }

  private lastOf(items: T[]): T[] {
    let chars = 0;
    let k = items.length;
    while (k > 0 && items.length - k < CONTEXT_ITEMS && chars < CONTEXT_CHARS) chars += this.size(items[--k] as T);
    return items.slice(k);
  }

  /** The streams with items held back. */
  holding(): number[] {
    return [...this.tails].filter(([, t]) => t.held.length > 0).map(([seq]) => seq);
  }
}
